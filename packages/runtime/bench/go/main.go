// Command baseline runs one controller-runtime workload of `npm run bench` and prints its figures
// as one JSON line. Every mode mirrors a probe of Capstan's side (packages/runtime/bench/*-probe.ts):
//
//	baseline read     <namespace> <count>  manager, ConfigMap controller, 4 workers, each key read once
//	baseline write    <namespace> <count>  the same, each reconcile writes one merge patch
//	baseline informer <namespace> <count>  the manager's cache only: sync time and heap per object
//	baseline queue    <keys> <rounds> [metrics]  client-go's rate-limiting work queue: add/get/done
//	                                       cycles; `metrics` turns on controller-runtime's queue metrics
//	baseline fleetlock <url> <ids-file> <requests>  FleetLock load: a client per id, closed loop (fleetlock.go)
//
// The kubeconfig comes from KUBECONFIG, as ctrl.GetConfigOrDie reads it.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
)

func main() {
	if len(os.Args) == 5 && os.Args[1] == "fleetlock" {
		n, err := strconv.Atoi(os.Args[4])
		if err != nil {
			fail(err)
		}
		result, err := fleetlockLoad(os.Args[2], os.Args[3], n)
		if err != nil {
			fail(err)
		}
		out, _ := json.Marshal(result)
		fmt.Println(string(out))
		return
	}
	if len(os.Args) == 5 && os.Args[1] == "queue" && os.Args[4] == "metrics" {
		keys, err1 := strconv.Atoi(os.Args[2])
		rounds, err2 := strconv.Atoi(os.Args[3])
		if err1 != nil || err2 != nil {
			fail(fmt.Errorf("queue: keys and rounds must be numbers"))
		}
		out, _ := json.Marshal(queueThroughput(keys, rounds, true))
		fmt.Println(string(out))
		return
	}
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: baseline read|write|informer <namespace> <count> | queue <keys> <rounds> [metrics] | fleetlock <url> <ids-file> <requests>")
		os.Exit(2)
	}
	mode, arg := os.Args[1], os.Args[2]
	n, err := strconv.Atoi(os.Args[3])
	if err != nil {
		fail(err)
	}
	var result any
	switch mode {
	case "read":
		result, err = reconcileAll(arg, n, false)
	case "write":
		result, err = reconcileAll(arg, n, true)
	case "informer":
		result, err = informerSync(arg, n)
	case "queue":
		keys, _ := strconv.Atoi(arg)
		result = queueThroughput(keys, n, false)
	default:
		err = fmt.Errorf("unknown mode %q", mode)
	}
	if err != nil {
		fail(err)
	}
	out, _ := json.Marshal(result)
	fmt.Println(string(out))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "baseline:", err)
	os.Exit(1)
}
