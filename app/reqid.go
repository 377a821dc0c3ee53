package app

import (
	"context"
	"reflect"
	"strconv"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// go-sdk v1.8.0 keeps the JSON-RPC id of the request a handler serves in
// the handler's context under an unexported key (mcp's idContextKey, which
// its streamable transport reads) and offers no accessor (its own comment
// there leaves a ForRequest to later). The span of a client's request
// needs that id (jsonrpc.request.id), so requestID finds the key's type
// once in a handler's context chain, makes the key from it, and from then
// on asks ctx.Value like any caller. Should go-sdk rename or drop the key,
// the attribute is left off (TestTraces says so), nothing else changes.
const (
	sdkKeyPkg  = "github.com/modelcontextprotocol/go-sdk/mcp"
	sdkKeyName = "idContextKey"
	// maxCtxDepth bounds the walk: the key sits a few contexts under a
	// middleware's.
	maxCtxDepth = 64
)

// sdkIDKey is go-sdk's key, once found.
var sdkIDKey atomic.Pointer[any]

// requestID is the JSON-RPC id of the request whose handler ctx is, as
// the semantic conventions write it (a number in decimal), or "".
func requestID(ctx context.Context) string {
	kp := sdkIDKey.Load()
	if kp == nil {
		k, ok := findIDKey(ctx)
		if !ok {
			return ""
		}
		kp = &k
		sdkIDKey.Store(kp)
	}
	id, ok := ctx.Value(*kp).(jsonrpc.ID)
	if !ok || !id.IsValid() {
		return ""
	}
	switch v := id.Raw().(type) {
	case int64:
		return strconv.FormatInt(v, 10)
	case string:
		return v
	}
	return ""
}

// findIDKey walks ctx's parents (the standard library's contexts and any
// that embed their parent as Context) for a value keyed by go-sdk's id
// key, and makes a key of that type. It reads types only: no unexported
// value is taken out of a context.
func findIDKey(ctx context.Context) (any, bool) {
	v := reflect.ValueOf(ctx)
	for range maxCtxDepth {
		if v.Kind() == reflect.Interface {
			v = v.Elem()
		}
		if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
			return nil, false
		}
		s := v.Elem()
		if k := s.FieldByName("key"); k.IsValid() && k.Kind() == reflect.Interface && !k.IsNil() {
			if t := k.Elem().Type(); t.PkgPath() == sdkKeyPkg && t.Name() == sdkKeyName {
				return reflect.Zero(t).Interface(), true
			}
		}
		parent := s.FieldByName("Context")
		if !parent.IsValid() {
			parent = s.FieldByName("c") // context.WithoutCancel's
		}
		if !parent.IsValid() || parent.Kind() != reflect.Interface || parent.IsNil() {
			return nil, false
		}
		v = parent
	}
	return nil, false
}
