package query

import (
	"reflect"
	"testing"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/ipc"
)

// setField sets v's field i to a non-zero value of its type.
func setField(t *testing.T, v reflect.Value, i int) {
	t.Helper()
	f := v.Field(i)
	switch f.Kind() {
	case reflect.String:
		f.SetString("x")
	case reflect.Int:
		f.SetInt(1)
	case reflect.Float64:
		f.SetFloat(1)
	case reflect.Bool:
		f.SetBool(true)
	case reflect.Slice:
		s := reflect.MakeSlice(f.Type(), 1, 1)
		if s.Index(0).Kind() == reflect.String {
			s.Index(0).SetString("x")
		}
		f.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(f.Type())
		m.SetMapIndex(reflect.ValueOf("x"), reflect.ValueOf(1.0))
		f.Set(m)
	default:
		t.Fatalf("%s.%s: no test value for a %s", v.Type(), v.Type().Field(i).Name, f.Kind())
	}
}

// Every field of a search or context request reaches the engine: set
// alone, it changes what the engine is asked.
func TestWireRequestsCarryEveryField(t *testing.T) {
	for i := range reflect.TypeFor[ipc.SearchRequest]().NumField() {
		var r ipc.SearchRequest
		setField(t, reflect.ValueOf(&r).Elem(), i)
		if reflect.DeepEqual(SearchRequest(r), Request{}) {
			t.Errorf("ipc.SearchRequest.%s is not carried to query.Request", reflect.TypeFor[ipc.SearchRequest]().Field(i).Name)
		}
	}
	for i := range reflect.TypeFor[ipc.ContextRequest]().NumField() {
		var r ipc.ContextRequest
		setField(t, reflect.ValueOf(&r).Elem(), i)
		req, opt := ContextRequest(r)
		if reflect.DeepEqual(req, Request{}) && reflect.DeepEqual(opt, ContextOptions{}) {
			t.Errorf("ipc.ContextRequest.%s is not carried to the engine", reflect.TypeFor[ipc.ContextRequest]().Field(i).Name)
		}
	}
}

// Every field of a similar note on the wire is filled.
func TestSimilarNoteWireFillsEveryField(t *testing.T) {
	n := SimilarNote{Vault: "v", Path: "a.md", Title: "A", AbsPath: "/v/a.md", Score: 0.5,
		Best: index.Hit{LineStart: 3, LineEnd: 9, Heading: []string{"A", "B"}}, Why: []string{"vector", "links"}}
	w := n.Wire()
	v := reflect.ValueOf(w)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Errorf("ipc.SimilarNote.%s is not filled", v.Type().Field(i).Name)
		}
	}
	if w.Heading != "A > B" || w.Why != "vector+links" {
		t.Errorf("heading %q, why %q", w.Heading, w.Why)
	}
}
