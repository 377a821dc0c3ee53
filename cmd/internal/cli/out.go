package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"os"
	"path/filepath"

	"github.com/switchboard-mcp/switchboard/cmd/internal/termsafe"
)

// outHelp is what call and read say about --out.
const outHelp = `With --out DIR each image, audio clip and binary resource goes to a new
file in DIR, named by its kind and place in the result (image-1.png,
resource-2.bin); no part of the name comes from the server. A file that
exists already is never overwritten: the next free name is taken
(image-1-1.png, image-1-2.png, …). The extension comes from a short list
of types a person opens to look at (.png .jpg .gif .webp .wav .mp3 .ogg
.pdf .txt .json); any other type, application/octet-stream included, is
.bin, so a server cannot hand you an .exe or a script.`

// outExtensions are the only extensions --out gives a file, by media
// type: formats a person opens to look at or listen to, none that a system
// runs. mime.ExtensionsByType is not asked: it reads the machine's
// mime.types, where application/octet-stream is .exe and text/x-python
// .py.
var outExtensions = map[string]string{
	"image/png":        ".png",
	"image/jpeg":       ".jpg",
	"image/gif":        ".gif",
	"image/webp":       ".webp",
	"audio/wav":        ".wav",
	"audio/x-wav":      ".wav",
	"audio/wave":       ".wav",
	"audio/vnd.wave":   ".wav",
	"audio/mpeg":       ".mp3",
	"audio/mp3":        ".mp3",
	"audio/ogg":        ".ogg",
	"application/pdf":  ".pdf",
	"text/plain":       ".txt",
	"application/json": ".json",
}

// outExtension is a media type's extension for --out: from outExtensions
// (parameters such as charset and case ignored), else .bin.
func outExtension(mimeType string) string {
	mt, _, err := mime.ParseMediaType(mimeType)
	if ext, ok := outExtensions[mt]; ok && err == nil {
		return ext
	}
	return ".bin"
}

// maxOutNames bounds the search for a free name: a directory that already
// holds a thousand copies of one name is an error, not a long loop.
const maxOutNames = 1000

// writeOut writes data to a new file in dir, which it creates if need be:
// base+ext, or the first free one of base-1+ext, base-2+ext, … It never
// overwrites (O_EXCL, which also refuses a symlink planted under the
// name), and it opens through an os.Root on dir, so no name, however
// made, reaches a file outside dir. It returns the file's path.
func writeOut(dir, base, ext string, data []byte) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	for n := range maxOutNames {
		name := base + ext
		if n > 0 {
			name = fmt.Sprintf("%s-%d%s", base, n, ext)
		}
		f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, werr := f.Write(data)
		if err := errors.Join(werr, f.Close()); err != nil {
			_ = root.Remove(name) // no half-written file left behind
			return "", err
		}
		return filepath.Join(dir, name), nil
	}
	return "", fmt.Errorf("%s: %s%s and %d more names like it are taken", dir, base, ext, maxOutNames-1)
}

// binaryLine summarises binary content, or writes it to outDir (writeOut)
// and says where.
func binaryLine(outDir, kind string, i int, mimeType string, data []byte) string {
	summary := fmt.Sprintf("[%s %s, %d bytes]", kind, termsafe.Line(mimeType), len(data))
	if outDir == "" {
		return summary
	}
	path, err := writeOut(outDir, fmt.Sprintf("%s-%d", kind, i+1), outExtension(mimeType), data)
	if err != nil {
		return summary + " (not written: " + oneLine(err.Error()) + ")"
	}
	return summary + " written to " + termsafe.Line(path)
}
