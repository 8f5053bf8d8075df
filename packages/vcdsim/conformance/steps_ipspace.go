package main

import (
	"fmt"

	types "github.com/vmware/go-vcloud-director/v2/types/v56"
)

// The IP Space and the gateway allocating from it, as the sample seed names them.
const (
	ipSpaceName = "public-ips"
	ipSpaceEdge = "edge-a-ips"
)

// ipSpaceLookup finds the IP Space by name (summaries, then the entity) and checks the gateway
// that allocates from it says so.
func ipSpaceLookup(r *run) (string, error) {
	if err := need(r.org != nil, "the org"); err != nil {
		return "", err
	}
	space, err := r.client.GetIpSpaceByName(ipSpaceName)
	if err != nil {
		return "", err
	}
	if space.IpSpace.Type != "PUBLIC" || len(space.IpSpace.IPSpaceRanges.IPRanges) == 0 {
		return "", fmt.Errorf("IP Space %s: type %s, %d ranges", ipSpaceName, space.IpSpace.Type,
			len(space.IpSpace.IPSpaceRanges.IPRanges))
	}
	egw, err := r.org.GetNsxtEdgeGatewayByName(ipSpaceEdge)
	if err != nil {
		return "", err
	}
	uplinks := egw.EdgeGateway.EdgeGatewayUplinks
	if len(uplinks) == 0 || uplinks[0].UsingIpSpace == nil || !*uplinks[0].UsingIpSpace {
		return "", fmt.Errorf("edge gateway %s does not report usingIpSpace", ipSpaceEdge)
	}
	r.ipSpaceID, r.ipSpaceEdgeID = space.IpSpace.ID, egw.EdgeGateway.ID
	return space.IpSpace.ID, nil
}

// ipSpaceAllocate reserves one floating IP; the SDK reads the address from the task's result.
func ipSpaceAllocate(r *run) (string, error) {
	if err := need(r.ipSpaceID != "", "the IP Space"); err != nil {
		return "", err
	}
	one := 1
	got, err := r.org.IpSpaceAllocateIp(r.ipSpaceID, &types.IpSpaceIpAllocationRequest{
		Type:     "FLOATING_IP",
		Quantity: &one,
	})
	if err != nil {
		return "", err
	}
	if len(got) != 1 || got[0].Value == "" || got[0].ID == "" {
		return "", fmt.Errorf("allocation result %+v, want one address with an id", got)
	}
	r.floatingIP = got[0].Value
	return r.floatingIP, nil
}

// ipSpaceSuggestions lists the gateway's unused floating IPs: the one just reserved is among them.
func ipSpaceSuggestions(r *run) (string, error) {
	if err := need(r.floatingIP != "", "a reserved floating IP"); err != nil {
		return "", err
	}
	all, err := r.client.GetAllIpSpaceFloatingIpSuggestions(r.ipSpaceEdgeID, nil)
	if err != nil {
		return "", err
	}
	for _, s := range all {
		for _, v := range s.UnusedValues {
			if v == r.floatingIP && s.IPSpaceRef.ID == r.ipSpaceID {
				return fmt.Sprintf("%d IP Spaces suggested", len(all)), nil
			}
		}
	}
	return "", fmt.Errorf("%s is not among the suggestions %+v", r.floatingIP, all)
}

// ipSpaceRelease finds the allocation by type and value, updates its description, releases it.
func ipSpaceRelease(r *run) (string, error) {
	if err := need(r.floatingIP != "", "a reserved floating IP"); err != nil {
		return "", err
	}
	a, err := r.org.GetIpSpaceAllocationByTypeAndValue(r.ipSpaceID, "FLOATING_IP", r.floatingIP, nil)
	if err != nil {
		return "", err
	}
	if a.IpSpaceIpAllocation.UsageState != "UNUSED" {
		return "", fmt.Errorf("allocation %s: usage %s, want UNUSED", r.floatingIP, a.IpSpaceIpAllocation.UsageState)
	}
	change := *a.IpSpaceIpAllocation
	change.Description = "conformance"
	updated, err := a.Update(&change)
	if err != nil {
		return "", fmt.Errorf("update: %w", err)
	}
	if updated.IpSpaceIpAllocation.Description != "conformance" {
		return "", fmt.Errorf("update kept description %q", updated.IpSpaceIpAllocation.Description)
	}
	if err := updated.Delete(); err != nil {
		return "", fmt.Errorf("release: %w", err)
	}
	if _, err := r.org.GetIpSpaceAllocationByTypeAndValue(r.ipSpaceID, "FLOATING_IP", r.floatingIP, nil); err == nil {
		return "", fmt.Errorf("%s is still allocated after release", r.floatingIP)
	}
	return a.IpSpaceIpAllocation.ID, nil
}
