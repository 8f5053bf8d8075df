package main

// The FleetLock load generator of the bench's FleetLock row (not a controller-runtime workload:
// it only lives in this program because the bench already builds it). Real clients (Zincati) are
// separate processes on separate machines; a load generator inside the bench's Node process would
// share its event loop and count its own HTTP client's cost into every round trip. This one is
// like `hey` or `wrk`: one goroutine per client, each with its own kept-alive connection, closed
// loop (the next request leaves when the previous answer is read).

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptrace"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// connectAtOnce bounds the untimed first requests in flight: clients connect over minutes, not in
// one millisecond, and 200 simultaneous connects would measure the kernel's SYN queue.
const connectAtOnce = 20

type fleetlockResult struct {
	Clients        int            `json:"clients"`
	Requests       int            `json:"requests"`
	Seconds        float64        `json:"seconds"`
	PerSecond      float64        `json:"perSecond"`
	P50Ms          float64        `json:"p50Ms"`
	P90Ms          float64        `json:"p90Ms"`
	P99Ms          float64        `json:"p99Ms"`
	MaxMs          float64        `json:"maxMs"`
	Statuses       map[string]int `json:"statuses"`
	Errors         int            `json:"errors"`
	NewConnections int            `json:"newConnections"`
	CPUMs          float64        `json:"cpuMs"`
}

// fleetlockLoad sends `perClient` steady-state requests from each client id in idsFile (one a
// line) to baseURL, after one untimed request each that opens its connection.
func fleetlockLoad(baseURL, idsFile string, perClient int) (*fleetlockResult, error) {
	raw, err := os.ReadFile(idsFile)
	if err != nil {
		return nil, err
	}
	ids := strings.Fields(string(raw))
	if len(ids) == 0 {
		return nil, fmt.Errorf("%s names no client", idsFile)
	}
	url := strings.TrimSuffix(baseURL, "/") + "/v1/steady-state"
	clients := make([]*http.Client, len(ids))
	for i := range clients {
		clients[i] = &http.Client{Transport: &http.Transport{
			MaxConnsPerHost:     1,
			MaxIdleConnsPerHost: 1,
			IdleConnTimeout:     time.Minute,
			DisableCompression:  true,
		}}
	}
	// Connect: one untimed request per client, at most connectAtOnce at a time.
	gate := make(chan struct{}, connectAtOnce)
	var wg sync.WaitGroup
	connectErrs := make([]error, len(ids))
	for i := range ids {
		wg.Add(1)
		gate <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-gate }()
			_, _, connectErrs[i] = steadyState(clients[i], url, ids[i], nil)
		}(i)
	}
	wg.Wait()
	for _, err := range connectErrs {
		if err != nil {
			return nil, fmt.Errorf("connecting: %w", err)
		}
	}

	latencies := make([][]time.Duration, len(ids))
	statuses := make([][]int, len(ids))
	errs := make([]int, len(ids))
	fresh := make([]int, len(ids))
	start := make(chan struct{})
	cpuBefore := cpuTime()
	for i := range ids {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			for r := 0; r < perClient; r++ {
				status, elapsed, err := steadyState(clients[i], url, ids[i], &fresh[i])
				if err != nil {
					errs[i]++
					continue
				}
				latencies[i] = append(latencies[i], elapsed)
				statuses[i] = append(statuses[i], status)
			}
		}(i)
	}
	began := time.Now()
	close(start)
	wg.Wait()
	seconds := time.Since(began).Seconds()
	cpu := cpuTime() - cpuBefore

	var all []time.Duration
	result := &fleetlockResult{Clients: len(ids), Statuses: map[string]int{}, Seconds: seconds, CPUMs: ms(cpu)}
	for i := range ids {
		all = append(all, latencies[i]...)
		for _, s := range statuses[i] {
			result.Statuses[strconv.Itoa(s)]++
		}
		result.Errors += errs[i]
		result.NewConnections += fresh[i]
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("no request was answered (%d errors)", result.Errors)
	}
	sort.Slice(all, func(a, b int) bool { return all[a] < all[b] })
	result.Requests = len(all)
	result.PerSecond = float64(len(all)) / seconds
	result.P50Ms = ms(percentile(all, 50))
	result.P90Ms = ms(percentile(all, 90))
	result.P99Ms = ms(percentile(all, 99))
	result.MaxMs = ms(all[len(all)-1])
	return result, nil
}

// steadyState sends one FleetLock steady-state and reads the whole answer; with `fresh`, counts
// requests that had to open a new connection (none should, after the connect phase).
func steadyState(c *http.Client, url, id string, fresh *int) (int, time.Duration, error) {
	body := `{"client_params":{"id":"` + id + `","group":"default"}}`
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewBufferString(body))
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("fleet-lock-protocol", "true")
	req.Header.Set("content-type", "application/json")
	if fresh != nil {
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
			GotConn: func(info httptrace.GotConnInfo) {
				if !info.Reused {
					*fresh++
				}
			},
		}))
	}
	began := time.Now()
	res, err := c.Do(req)
	if err != nil {
		return 0, 0, err
	}
	_, err = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	elapsed := time.Since(began)
	if err != nil {
		return 0, 0, err
	}
	return res.StatusCode, elapsed, nil
}

// percentile is the nearest-rank percentile of sorted durations (as the bench's table.ts takes it).
func percentile(sorted []time.Duration, p float64) time.Duration {
	rank := int(math.Ceil(float64(len(sorted))*p/100)) - 1
	if rank < 0 {
		rank = 0
	}
	if rank >= len(sorted) {
		rank = len(sorted) - 1
	}
	return sorted[rank]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// cpuTime is this process's user and system CPU time so far.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
