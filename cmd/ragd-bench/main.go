// Command ragd-bench generates synthetic vaults and runs the scale
// benchmark (make bench-scale):
//
//	ragd-bench gen -scale 10 [-seed 1] [-cache DIR]   # prints the vault's path
//	ragd-bench scale [-scales 1,10] [-runs 3] …        # ragd beside FTS5 and Bleve
//	ragd-bench restart -dir DIR -vault V [-ragd A,B]   # warm restarts on a kept index
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/ragd/ragd/bench/scale"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: ragd-bench gen|scale|restart [flags]")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "gen":
		os.Exit(scale.GenMain(os.Args[2:], os.Stdout, os.Stderr))
	case "scale":
		os.Exit(scale.Main(ctx, os.Args[2:], os.Stdout, os.Stderr))
	case "restart":
		os.Exit(scale.RestartMain(ctx, os.Args[2:], os.Stdout, os.Stderr))
	default:
		fmt.Fprintf(os.Stderr, "ragd-bench: unknown command %q: use gen, scale or restart\n", os.Args[1])
		os.Exit(2)
	}
}
