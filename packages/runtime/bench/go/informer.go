package main

import (
	"context"
	"fmt"
	"runtime"
	"time"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
)

// settledHeap is the live heap after two full collections.
func settledHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// informerSync starts the cache a manager would give a ConfigMap controller (the defaults a user
// gets) and reports how long its first sync took and how much live heap the cached objects hold.
func informerSync(namespace string, count int) (map[string]any, error) {
	cfg := ctrl.GetConfigOrDie()
	c, err := cache.New(cfg, cache.Options{DefaultNamespaces: map[string]cache.Config{namespace: {}}})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	before := settledHeap()
	started := time.Now()
	if _, err := c.GetInformer(ctx, &corev1.ConfigMap{}); err != nil {
		return nil, err
	}
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		return nil, fmt.Errorf("cache did not sync")
	}
	syncMs := float64(time.Since(started).Microseconds()) / 1000
	var list corev1.ConfigMapList
	if err := c.List(ctx, &list); err != nil {
		return nil, err
	}
	if len(list.Items) != count {
		return nil, fmt.Errorf("cached %d of %d", len(list.Items), count)
	}
	list = corev1.ConfigMapList{}
	after := settledHeap()
	return map[string]any{"syncMs": syncMs, "heapBytes": int64(after) - int64(before)}, nil
}
