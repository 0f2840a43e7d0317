// pingpong: two goroutines ping-pong an int over unbuffered channels, the Go
// half of Bendersky's context-switch comparison (seed 002). tasklab builds it
// with `go build` on first use; it needs nothing outside the standard library.
//
// Usage: pingpong SAMPLE_NS SAMPLES [lock]
// A warm-up sizes a batch of round trips to take about SAMPLE_NS; then it
// prints one line per sample: "ROUND_TRIPS NANOSECONDS", then the process's
// CPU time over the samples: "cpu USER_NS SYS_NS ROUND_TRIPS".
// With "lock", each goroutine calls runtime.LockOSThread, so every hand-off
// becomes a kernel switch between two OS threads.
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"time"
)

// cpuNs is this process's user and system CPU time so far (every thread),
// or ok=false if it cannot be read.
func cpuNs() (user, sys int64, ok bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, 0, false
	}
	return ru.Utime.Nano(), ru.Stime.Nano(), true
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: pingpong SAMPLE_NS SAMPLES [lock]")
		os.Exit(2)
	}
	target, err1 := strconv.ParseInt(os.Args[1], 10, 64)
	samples, err2 := strconv.Atoi(os.Args[2])
	if err1 != nil || err2 != nil || target < 1 || samples < 1 {
		fmt.Fprintln(os.Stderr, "pingpong: SAMPLE_NS and SAMPLES must be positive integers")
		os.Exit(2)
	}
	lock := len(os.Args) > 3 && os.Args[3] == "lock"

	ping := make(chan int)
	pong := make(chan int)
	go func() {
		if lock {
			runtime.LockOSThread()
		}
		for v := range ping {
			pong <- v + 1
		}
		close(pong)
	}()
	if lock {
		runtime.LockOSThread()
	}
	round := func(k int) {
		for i := 0; i < k; i++ {
			ping <- i
			<-pong
		}
	}
	// Warm-up: grow the batch until it takes its share of the budget.
	n := 1
	for {
		t0 := time.Now()
		round(n)
		dt := time.Since(t0).Nanoseconds()
		if dt >= target || n >= 1<<30 {
			break
		}
		grow := float64(target) / float64(dt+1)
		if grow > 10 {
			grow = 10
		}
		if grow < 2 {
			grow = 2
		}
		n = int(float64(n)*grow) + 1
	}
	u0, s0, ok0 := cpuNs()
	total := 0
	for s := 0; s < samples; s++ {
		t0 := time.Now()
		round(n)
		fmt.Println(n, time.Since(t0).Nanoseconds())
		total += n
	}
	u1, s1, ok1 := cpuNs()
	if ok0 && ok1 {
		fmt.Println("cpu", u1-u0, s1-s0, total)
	}
	close(ping)
	<-pong
	fmt.Fprintf(os.Stderr, "GOMAXPROCS=%d\n", runtime.GOMAXPROCS(0))
}
