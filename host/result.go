package host

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Results sized for a model (DESIGN.md, "The agent's side"): a tool's
// text can be far more than a model's context should take, so an agent
// may cap what a result renders to, with a note that says what was cut
// and where the whole of it is.

// ResultOptions shape RenderResult.
type ResultOptions struct {
	// MaxText caps the rendered text, in bytes; zero means no cap.
	MaxText int
	// Keep, when the text is cut, is given the whole text and returns
	// where it put it (a path, a URI) for the note. Nil keeps nothing:
	// the note says only how much was cut. KeepInDir is one.
	Keep func(full string) (where string, err error)
}

// RenderResult is ResultText within opts: images and audio summarised,
// and a text over MaxText cut at a character, followed by a note of what
// was cut and where the whole is.
func RenderResult(res *mcp.CallToolResult, opts ResultOptions) string {
	text := ResultText(res)
	if opts.MaxText <= 0 || len(text) <= opts.MaxText {
		return text
	}
	note := fmt.Sprintf("[switchboard: the result is %d bytes; cut at %d]", len(text), opts.MaxText)
	if opts.Keep != nil {
		if where, err := opts.Keep(text); err == nil {
			note = fmt.Sprintf("[switchboard: the result is %d bytes; cut at %d; the whole of it is in %s]", len(text), opts.MaxText, where)
		} else {
			note = fmt.Sprintf("[switchboard: the result is %d bytes; cut at %d; keeping the whole failed: %v]", len(text), opts.MaxText, err)
		}
	}
	return capText(text, opts.MaxText) + "\n" + note
}

// KeepInDir is a ResultOptions.Keep that writes each whole result to a new
// file of its own in dir (mode 0600), and names the file.
func KeepInDir(dir string) func(string) (string, error) {
	return func(full string) (string, error) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", err
		}
		f, err := os.CreateTemp(dir, "result-*.txt")
		if err != nil {
			return "", err
		}
		if _, err := f.WriteString(full); err != nil {
			f.Close()
			os.Remove(f.Name())
			return "", err
		}
		if err := f.Close(); err != nil {
			return "", err
		}
		return filepath.Clean(f.Name()), nil
	}
}
