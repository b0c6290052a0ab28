package segment

import (
	"reflect"
	"testing"
)

func TestNoteCodecRoundTrip(t *testing.T) {
	for _, n := range randomNotes(4, 50) {
		got, err := DecodeNote(EncodeNote(nil, n))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, n) {
			t.Fatalf("round trip of %x:\n got %+v\nwant %+v", n.ID, got, n)
		}
	}
}

func FuzzDecodeNote(f *testing.F) {
	for _, n := range randomNotes(5, 5) {
		f.Add(EncodeNote(nil, n))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := DecodeNote(b)
		if err != nil {
			return
		}
		if _, err := DecodeNote(EncodeNote(nil, n)); err != nil {
			t.Fatalf("re-encoded note does not decode: %v", err)
		}
	})
}
