package main

import (
	"fmt"
	"time"

	"k8s.io/client-go/util/workqueue"
)

// queueThroughput drives client-go's rate-limiting queue (a controller's default queue before the
// priority queue) the way Capstan's bench drives its own: add every key, then get, forget and done
// each, `rounds` times; it returns cycles per second.
//
// With metrics on, the queue is named and so reports to the provider controller-runtime registers
// (this binary links it, as every controller does: Prometheus series per named queue); with
// metrics off, it is unnamed, which client-go runs without metrics, as plain client-go runs every
// queue when no provider is set. Capstan's side runs with the same setting: like with like.
func queueThroughput(keys, rounds int, metrics bool) map[string]any {
	names := make([]string, keys)
	for i := range names {
		names[i] = fmt.Sprintf("ns/obj-%d", i)
	}
	config := workqueue.TypedRateLimitingQueueConfig[string]{}
	if metrics {
		config.Name = "bench"
	}
	q := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](), config)
	defer q.ShutDown()
	started := time.Now()
	for r := 0; r < rounds; r++ {
		for _, key := range names {
			q.Add(key)
		}
		for i := 0; i < keys; i++ {
			key, shutdown := q.Get()
			if shutdown {
				panic("unexpected shutdown")
			}
			q.Forget(key)
			q.Done(key)
		}
	}
	return map[string]any{"perSecond": float64(keys*rounds) / time.Since(started).Seconds()}
}
