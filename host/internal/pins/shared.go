package pins

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/switchboard-mcp/switchboard/internal/safefile"
)

// Shared is a place other than a file where the book is kept, as one
// versioned document: the store replicas share (DESIGN.md F66, "Pins
// shared by replicas"). Name names it in errors, without credentials.
type Shared interface {
	Name() string
	// Load is the document and its version; nil data is no book yet.
	Load(ctx context.Context) (data []byte, version int64, err error)
	// Swap writes data if the version is still version, reporting false
	// when another wrote first.
	Swap(ctx context.Context, version int64, data []byte) (bool, error)
}

// maxSwaps bounds how often SharedUpdate reads again after losing a race
// to another writer: replicas record a listing each, so a few lose once.
const maxSwaps = 32

// ReadShared reads the book kept in s; none kept is an empty book. A
// document that is not a book is an *Error, as a bad file is.
func ReadShared(ctx context.Context, s Shared) (*Book, int64, error) {
	data, v, err := s.Load(ctx)
	if err != nil {
		return nil, 0, &Error{Shared: s.Name(), Err: err}
	}
	if data == nil {
		return New(), v, nil
	}
	b, err := decode(data)
	if err != nil {
		return nil, 0, &Error{Shared: s.Name(), Err: err}
	}
	return b, v, nil
}

// SharedUpdate is Update for a book kept in s: fn sees the book as it is
// now and reports whether it changed it, and the change is written only
// on the version fn saw; when another replica wrote first, fn runs again
// on what it wrote, so no replica's change is lost. A book that cannot be
// read is left as it is, and one grown past what a pin file may hold is
// not written.
func SharedUpdate(ctx context.Context, s Shared, fn func(*Book) (bool, error)) error {
	for range maxSwaps {
		b, v, err := ReadShared(ctx, s)
		if err != nil {
			return err
		}
		if changed, err := fn(b); err != nil || !changed {
			return err
		}
		data, err := json.Marshal(b)
		if err != nil {
			return &Error{Shared: s.Name(), Err: err}
		}
		if len(data) > safefile.MaxConfigSize {
			return &Error{Shared: s.Name(), Err: fmt.Errorf("%d bytes, more than the %d the pins may hold", len(data), safefile.MaxConfigSize)}
		}
		ok, err := s.Swap(ctx, v, data)
		if err != nil {
			return &Error{Shared: s.Name(), Err: err}
		}
		if ok {
			return nil
		}
		if ctx.Err() != nil {
			return &Error{Shared: s.Name(), Err: ctx.Err()}
		}
	}
	return &Error{Shared: s.Name(), Err: fmt.Errorf("another writer won %d times in a row", maxSwaps)}
}
