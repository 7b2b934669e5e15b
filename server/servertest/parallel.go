package servertest

import (
	"flag"
	"runtime"
	"strconv"
)

// WaitingTests raises -test.parallel to four tests per CPU when the command
// line did not set it. The server and CLI tests spend most of their time
// waiting (on a server's answer, a subprocess, an fsync), not computing, so
// running more of them than GOMAXPROCS (the default) at once shortens a run
// without loading the CPU more. Call it from TestMain, before m.Run; it
// parses the flags.
func WaitingTests() {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0)))
	}
}
