package main

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/vmware/go-vcloud-director/v2/govcd"
	types "github.com/vmware/go-vcloud-director/v2/types/v56"
)

const (
	rawVmName = "conformance-raw-0"
	sdkVmName = "conformance-sdk-0"
)

// composeVApp: an empty vApp (composeVApp answers the VApp with its task; the SDK waits on it).
func composeVApp(r *run) (string, error) {
	if err := need(r.vdc != nil, "the VDC"); err != nil {
		return "", err
	}
	r.vappName = fmt.Sprintf("conformance-%s-%d", r.cfg.login, time.Now().UnixNano())
	vapp, err := r.vdc.CreateRawVApp(r.vappName, "vcdsim conformance")
	if err != nil {
		return "", err
	}
	r.vapp = vapp
	return vapp.VApp.HREF, nil
}

// addOrgNetwork: bridges the vApp to the org VDC network (PUT networkConfigSection; the body
// carries BackwardCompatibilityMode as the SDK writes it).
func addOrgNetwork(r *run) (string, error) {
	if err := need(r.vapp != nil && r.network != nil, "the vApp and the network"); err != nil {
		return "", err
	}
	section, err := r.vapp.AddOrgNetwork(&govcd.VappNetworkSettings{}, r.network.OrgVDCNetwork, false)
	if err != nil {
		return "", err
	}
	for _, n := range section.NetworkConfig {
		if n.NetworkName == r.cfg.network {
			return "vApp network " + n.NetworkName, r.vapp.Refresh()
		}
	}
	return "", fmt.Errorf("vApp has no network %s after AddOrgNetwork", r.cfg.network)
}

// createVmRaw: a VM by recomposeVApp with the body a Cluster API provider builds (general
// params, guest customization, a POOL NIC, storage profile, sizing policy by URN), the task
// waited with WaitTaskCompletion.
func createVmRaw(r *run) (string, error) {
	if err := need(r.vapp != nil && r.template != nil && r.sizing != nil, "the vApp, template and sizing policy"); err != nil {
		return "", err
	}
	yes, no := true, false
	params := &types.ReComposeVAppParams{
		Ovf: types.XMLNamespaceOVF, Xsi: types.XMLNamespaceXSI, Xmlns: types.XMLNamespaceVCloud,
		Name: r.vapp.VApp.Name, Description: r.vapp.VApp.Description,
		SourcedItem: &types.SourcedCompositionItemParam{
			Source: &types.Reference{HREF: r.template.VAppTemplate.Children.VM[0].HREF, Name: rawVmName},
			VMGeneralParams: &types.VMGeneralParams{
				Name: rawVmName, Description: "created by raw recompose", NeedsCustomization: true, RegenerateBiosUuid: true,
			},
			VAppScopedLocalID: rawVmName,
			InstantiationParams: &types.InstantiationParams{
				GuestCustomizationSection: &types.GuestCustomizationSection{
					Enabled: &yes, AdminPasswordEnabled: &yes, AdminPasswordAuto: &yes, ResetPasswordRequired: &no,
					ComputerName: rawVmName,
				},
				NetworkConnectionSection: &types.NetworkConnectionSection{
					NetworkConnection: []*types.NetworkConnection{{
						Network: r.cfg.network, IsConnected: true, IPAddressAllocationMode: "POOL", NetworkAdapterType: "VMXNET3",
					}},
				},
			},
			StorageProfile: r.vdc.Vdc.VdcStorageProfiles.VdcStorageProfile[0],
			ComputePolicy:  &types.ComputePolicy{VmSizingPolicy: &types.Reference{HREF: r.sizing.ID}},
		},
		AllEULAsAccepted: true,
	}
	task, err := r.client.Client.ExecuteTaskRequest(r.vapp.VApp.HREF+"/action/recomposeVApp", http.MethodPost,
		types.MimeRecomposeVappParams, "error recomposing vApp: %s", params)
	if err != nil {
		return "", err
	}
	if err := task.WaitTaskCompletion(); err != nil {
		return "", err
	}
	vm, err := r.vapp.GetVMByName(rawVmName, true)
	if err != nil {
		return "", err
	}
	if vm.VM.ComputePolicy == nil || vm.VM.ComputePolicy.VmSizingPolicy == nil {
		return "", fmt.Errorf("VM %s shows no sizing policy", rawVmName)
	}
	r.rawVm = vm
	return vm.VM.ID, nil
}

// createVmSdk: a VM by the SDK's AddNewVM, which names it only through the Source's name.
func createVmSdk(r *run) (string, error) {
	if err := need(r.vapp != nil && r.template != nil, "the vApp and template"); err != nil {
		return "", err
	}
	nics := &types.NetworkConnectionSection{
		PrimaryNetworkConnectionIndex: 0,
		NetworkConnection: []*types.NetworkConnection{{
			Network: r.cfg.network, NetworkConnectionIndex: 0, IsConnected: true, IPAddressAllocationMode: "POOL",
			NetworkAdapterType: "VMXNET3",
		}},
	}
	task, err := r.vapp.AddNewVM(sdkVmName, *r.template, nics, true)
	if err != nil {
		return "", err
	}
	if err := task.WaitTaskCompletion(); err != nil {
		return "", err
	}
	vm, err := r.vapp.GetVMByName(sdkVmName, true)
	if err != nil {
		return "", fmt.Errorf("AddNewVM made no VM named %s: %w", sdkVmName, err)
	}
	r.sdkVm = vm
	return vm.VM.ID, nil
}

// extraConfigSdk: guestinfo through UpdateExtraConfig (GET and PUT virtualHardwareSection).
func extraConfigSdk(r *run) (string, error) {
	if err := need(r.sdkVm != nil, "the AddNewVM VM"); err != nil {
		return "", err
	}
	want := map[string]string{"guestinfo.userdata": "I2Nsb3VkLWNvbmZpZw==", "guestinfo.userdata.encoding": "base64"}
	var update []*types.ExtraConfigMarshal
	for k, v := range want {
		update = append(update, &types.ExtraConfigMarshal{Key: k, Value: v})
	}
	got, err := r.sdkVm.UpdateExtraConfig(update)
	if err != nil {
		return "", err
	}
	return checkExtraConfig(got, want)
}

func checkExtraConfig(got []*types.ExtraConfigMarshal, want map[string]string) (string, error) {
	seen := map[string]string{}
	for _, e := range got {
		seen[e.Key] = e.Value
	}
	for k, v := range want {
		if seen[k] != v {
			return "", fmt.Errorf("ExtraConfig %s = %q, want %q", k, seen[k], v)
		}
	}
	return fmt.Sprintf("%d keys", len(got)), nil
}

// extraConfigReconfigure: guestinfo through POST {vm}/action/reconfigureVm with the whole Vm
// document as read, ExtraConfig added (how CAPVCD's vcdsdk writes it).
func extraConfigReconfigure(r *run) (string, error) {
	if err := need(r.rawVm != nil, "the raw-recompose VM"); err != nil {
		return "", err
	}
	want := map[string]string{"guestinfo.metadata": "aW5zdGFuY2UtaWQ6IHJhdw==", "guestinfo.metadata.encoding": "base64"}
	if err := reconfigureWithExtraConfig(r, r.rawVm.VM.HREF, want); err != nil {
		return "", err
	}
	got, err := r.rawVm.GetExtraConfig()
	if err != nil {
		return "", err
	}
	return checkExtraConfig(got, want)
}

func metadataPlain(r *run) (string, error) {
	if err := need(r.rawVm != nil, "the raw-recompose VM"); err != nil {
		return "", err
	}
	// The SDK's AddMetadataEntry (deprecated, but what providers call) sends no Domain.
	if err := r.rawVm.AddMetadataEntry(types.MetadataStringValue, "cluster", "c1"); err != nil { //nolint:staticcheck
		return "", err
	}
	return readMetadata(r.rawVm, "cluster", "c1")
}

// metadataDomain: an entry written with a Domain (GENERAL, READWRITE, as the SDK writes a tenant's)
// reads back without one, as VCD shows that default; the SYSTEM domain is refused to a tenant.
func metadataDomain(r *run) (string, error) {
	if err := need(r.rawVm != nil, "the raw-recompose VM"); err != nil {
		return "", err
	}
	if err := r.rawVm.AddMetadataEntryWithVisibility("role", "control-plane", types.MetadataStringValue,
		types.MetadataReadWriteVisibility, false); err != nil {
		return "", err
	}
	detail, err := readMetadata(r.rawVm, "role", "control-plane")
	if err != nil {
		return "", err
	}
	err = r.rawVm.AddMetadataEntryWithVisibility("owner", "x", types.MetadataStringValue,
		types.MetadataReadOnlyVisibility, true)
	if err == nil || !strings.Contains(err.Error(), "403") {
		return "", fmt.Errorf("SYSTEM-domain metadata by a tenant: %v, want a 403", err)
	}
	if err := r.rawVm.DeleteMetadataEntryWithDomain("role", false); err != nil {
		return "", fmt.Errorf("delete: %w", err)
	}
	return detail, nil
}

// readMetadata finds the entry; a GENERAL, READWRITE entry shows no Domain (VCD leaves it out).
func readMetadata(vm *govcd.VM, key, value string) (string, error) {
	md, err := vm.GetMetadata()
	if err != nil {
		return "", err
	}
	for _, e := range md.MetadataEntry {
		if e.Key != key {
			continue
		}
		if e.TypedValue == nil || e.TypedValue.Value != value {
			return "", fmt.Errorf("metadata %s has the wrong value", key)
		}
		if e.Domain != nil {
			return "", fmt.Errorf("metadata %s shows Domain %+v; VCD leaves out GENERAL/READWRITE", key, e.Domain)
		}
		return fmt.Sprintf("%d entries", len(md.MetadataEntry)), nil
	}
	return "", fmt.Errorf("metadata %s not found", key)
}
