package main

import (
	"fmt"
	"strings"

	types "github.com/vmware/go-vcloud-director/v2/types/v56"
)

// nicModes gives the powered-off VM a MANUAL NIC (an address of the network's subnet, outside its
// pools) and a DHCP NIC with the SDK's UpdateNetworkConnectionSection, then reads them back: the
// MANUAL address is reported at once, the DHCP NIC has none until a guest leases one.
func nicModes(r *run) (string, error) {
	if err := need(r.rawVm != nil && r.network != nil, "the raw-recompose VM and the network"); err != nil {
		return "", err
	}
	scopes := r.network.OrgVDCNetwork.Configuration.IPScopes
	if scopes == nil || len(scopes.IPScope) == 0 {
		return "", fmt.Errorf("network %s reports no IpScope", r.network.OrgVDCNetwork.Name)
	}
	gateway := scopes.IPScope[0].Gateway
	manual := gateway[:strings.LastIndex(gateway, ".")+1] + "7"
	net := r.network.OrgVDCNetwork.Name
	section := &types.NetworkConnectionSection{
		PrimaryNetworkConnectionIndex: 0,
		NetworkConnection: []*types.NetworkConnection{
			{Network: net, NetworkConnectionIndex: 0, IPAddress: manual, IsConnected: true,
				IPAddressAllocationMode: types.IPAllocationModeManual, NetworkAdapterType: "VMXNET3"},
			{Network: net, NetworkConnectionIndex: 1, IsConnected: true,
				IPAddressAllocationMode: types.IPAllocationModeDHCP, NetworkAdapterType: "VMXNET3"},
		},
	}
	if err := r.rawVm.UpdateNetworkConnectionSection(section); err != nil {
		return "", err
	}
	got, err := r.rawVm.GetNetworkConnectionSection()
	if err != nil {
		return "", err
	}
	if len(got.NetworkConnection) != 2 {
		return "", fmt.Errorf("%d NICs read back, want 2", len(got.NetworkConnection))
	}
	for _, c := range got.NetworkConnection {
		switch c.NetworkConnectionIndex {
		case 0:
			if c.IPAddressAllocationMode != types.IPAllocationModeManual || c.IPAddress != manual {
				return "", fmt.Errorf("NIC 0: %s %q, want MANUAL %q", c.IPAddressAllocationMode, c.IPAddress, manual)
			}
		case 1:
			if c.IPAddressAllocationMode != types.IPAllocationModeDHCP || c.IPAddress != "" || c.MACAddress == "" {
				return "", fmt.Errorf("NIC 1: %s %q MAC %q, want DHCP, no address while off, a MAC", c.IPAddressAllocationMode, c.IPAddress, c.MACAddress)
			}
		}
	}
	return fmt.Sprintf("MANUAL %s, DHCP", manual), nil
}
