package heuristic

import (
	"testing"

	"github.com/ragd/ragd/plugins/contract"
)

func TestContract(t *testing.T) { contract.TestReranker(t, New()) }
