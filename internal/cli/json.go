package cli

import (
	"encoding/json"
	"io"

	"github.com/spf13/cobra"
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
// structured content call shows as JSON even without --json.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
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
	_, err = w.Write(append(b, '\n'))
	return err
}
