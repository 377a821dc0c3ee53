package cli

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/cmd/internal/termsafe"
)

// jsonFlag is --json. Every command that has it declares it with
// addJSONFlag and prints its JSON with writeJSON (a document) or
// writeJSONLine (a stream), so JSON is written one way everywhere.
type jsonFlag bool

// addJSONFlag declares --json on cmd; usage says what it prints.
func addJSONFlag(cmd *cobra.Command, j *jsonFlag, usage string) {
	cmd.Flags().BoolVar((*bool)(j), "json", false, usage)
}

// writeJSON writes v as one indented document with a trailing newline,
// HTML characters as they are: what a listing or a result prints, and the
// structured content call shows as JSON even without --json. Both writers
// escape what encoding/json leaves raw and a terminal would act on (DEL,
// C1 controls, bidi overrides; termsafe.JSON): the values are the same,
// and JSON printed on a terminal cannot drive it.
func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(termsafe.JSON(buf.Bytes()))
	return err
}

// writeJSONLine writes v as one line of JSON: what a stream (logs, watch)
// prints, an object per line. It escapes <, > and & as encoding/json does
// by default, unlike writeJSON; the streams have always done so, and a
// script reading them decodes both the same.
func writeJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(termsafe.JSON(b), '\n'))
	return err
}
