// Module of the fixture generator gen.go only, so that its PDF library
// stays out of ragd's own go.mod.
module ragd-pdf-fixtures

go 1.26

require github.com/go-pdf/fpdf v0.9.0 // indirect
