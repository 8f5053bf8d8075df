package main

import (
	"fmt"
	"time"

	"k8s.io/client-go/util/workqueue"
)

// queueThroughput drives client-go's rate-limiting queue (a controller's default queue before the
// priority queue) the way Capstan's bench drives its own: add every key, then get, forget and done
// each, `rounds` times; it returns cycles per second.
func queueThroughput(keys, rounds int) map[string]any {
	names := make([]string, keys)
	for i := range names {
		names[i] = fmt.Sprintf("ns/obj-%d", i)
	}
	q := workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "bench"},
	)
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
