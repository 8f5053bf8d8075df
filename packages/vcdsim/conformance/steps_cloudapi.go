package main

import (
	"fmt"
	"net/url"

	types "github.com/vmware/go-vcloud-director/v2/types/v56"
)

// openApiNetwork reads the org VDC network through CloudAPI and checks its edge gateway.
func openApiNetwork(r *run) (string, error) {
	if err := need(r.vdc != nil, "the VDC"); err != nil {
		return "", err
	}
	n, err := r.vdc.GetOpenApiOrgVdcNetworkByName(r.cfg.network)
	if err != nil {
		return "", err
	}
	c := n.OpenApiOrgVdcNetwork.Connection
	if c == nil || c.RouterRef.Name != r.cfg.edge {
		return "", fmt.Errorf("network %s: connection %+v, want router %s", r.cfg.network, c, r.cfg.edge)
	}
	return n.OpenApiOrgVdcNetwork.ID, nil
}

// edgeGateway reads the NSX-T edge gateway and its used IP addresses.
func edgeGateway(r *run) (string, error) {
	if err := need(r.org != nil, "the org"); err != nil {
		return "", err
	}
	egw, err := r.org.GetNsxtEdgeGatewayByName(r.cfg.edge)
	if err != nil {
		return "", err
	}
	used, err := egw.GetUsedIpAddresses(nil)
	if err != nil {
		return "", fmt.Errorf("used IP addresses: %w", err)
	}
	if len(egw.EdgeGateway.EdgeGatewayUplinks) == 0 {
		return "", fmt.Errorf("edge gateway %s has no uplink", r.cfg.edge)
	}
	r.edge = egw
	return fmt.Sprintf("%s, %d used addresses", egw.EdgeGateway.ID, len(used)), nil
}

// segAssignments finds the service engine group assigned to the edge gateway.
func segAssignments(r *run) (string, error) {
	if err := need(r.edge != nil, "the edge gateway"); err != nil {
		return "", err
	}
	all, err := r.client.GetAllAlbServiceEngineGroupAssignments(
		url.Values{"filter": {"gatewayRef.id==" + r.edge.EdgeGateway.ID}})
	if err != nil {
		return "", err
	}
	if len(all) == 0 {
		return "", fmt.Errorf("no service engine group assigned to %s", r.cfg.edge)
	}
	r.segRef = all[0].NsxtAlbServiceEngineGroupAssignment.ServiceEngineGroupRef
	return r.segRef.Name, nil
}

// createPool creates an ALB pool with the VM as member and reads it back.
func createPool(r *run) (string, error) {
	if err := need(r.edge != nil, "the edge gateway"); err != nil {
		return "", err
	}
	yes, port := true, 6443
	member := r.vmIP
	if member == "" {
		member = "10.10.0.250"
	}
	pool, err := r.client.CreateNsxtAlbPool(&types.NsxtAlbPool{
		Name:           "conformance-" + r.cfg.login,
		GatewayRef:     types.OpenApiReference{ID: r.edge.EdgeGateway.ID},
		Enabled:        &yes,
		Algorithm:      "ROUND_ROBIN",
		DefaultPort:    &port,
		Members:        []types.NsxtAlbPoolMember{{Enabled: true, IpAddress: member, Port: 6443}},
		HealthMonitors: []types.NsxtAlbPoolHealthMonitor{{Type: "TCP"}},
	})
	if err != nil {
		return "", err
	}
	read, err := r.client.GetAlbPoolById(pool.NsxtAlbPool.ID)
	if err != nil {
		return "", fmt.Errorf("read back: %w", err)
	}
	if len(read.NsxtAlbPool.Members) != 1 || read.NsxtAlbPool.Members[0].IpAddress != member {
		return "", fmt.Errorf("pool members %+v, want %s", read.NsxtAlbPool.Members, member)
	}
	r.pool = read
	return read.NsxtAlbPool.ID, nil
}

// createVirtualService creates an L4 virtual service on the gateway's first uplink address.
func createVirtualService(r *run) (string, error) {
	if err := need(r.pool != nil && r.segRef != nil, "the pool and a service engine group"); err != nil {
		return "", err
	}
	free, err := r.edge.GetAllUnusedExternalIPAddresses(true)
	if err != nil {
		return "", fmt.Errorf("unused addresses: %w", err)
	}
	if len(free) == 0 {
		return "", fmt.Errorf("edge gateway has no unused address")
	}
	yes, port := true, 6443
	vs, err := r.client.CreateNsxtAlbVirtualService(&types.NsxtAlbVirtualService{
		Name:                  "conformance-" + r.cfg.login,
		Enabled:               &yes,
		ApplicationProfile:    types.NsxtAlbVirtualServiceApplicationProfile{Type: "L4", SystemDefined: true},
		GatewayRef:            types.OpenApiReference{ID: r.edge.EdgeGateway.ID},
		LoadBalancerPoolRef:   types.OpenApiReference{ID: r.pool.NsxtAlbPool.ID},
		ServiceEngineGroupRef: types.OpenApiReference{ID: r.segRef.ID},
		ServicePorts:          []types.NsxtAlbVirtualServicePort{{PortStart: &port}},
		VirtualIpAddress:      free[0].String(),
	})
	if err != nil {
		return "", err
	}
	read, err := r.client.GetAlbVirtualServiceById(vs.NsxtAlbVirtualService.ID)
	if err != nil {
		return "", fmt.Errorf("read back: %w", err)
	}
	r.vs = read
	return fmt.Sprintf("%s on %s, health %s", read.NsxtAlbVirtualService.ID,
		read.NsxtAlbVirtualService.VirtualIpAddress, read.NsxtAlbVirtualService.HealthStatus), nil
}

func deleteVirtualService(r *run) (string, error) {
	if err := need(r.vs != nil, "the virtual service"); err != nil {
		return "", err
	}
	if err := r.vs.Delete(); err != nil {
		return "", err
	}
	if _, err := r.client.GetAlbVirtualServiceById(r.vs.NsxtAlbVirtualService.ID); err == nil {
		return "", fmt.Errorf("virtual service still readable after delete")
	}
	return "deleted", nil
}

func deletePool(r *run) (string, error) {
	if err := need(r.pool != nil, "the pool"); err != nil {
		return "", err
	}
	if err := r.pool.Delete(); err != nil {
		return "", err
	}
	if _, err := r.client.GetAlbPoolById(r.pool.NsxtAlbPool.ID); err == nil {
		return "", fmt.Errorf("pool still readable after delete")
	}
	return "deleted", nil
}
