package main

import (
	"github.com/vmware/go-vcloud-director/v2/govcd"
	types "github.com/vmware/go-vcloud-director/v2/types/v56"
)

// state is what earlier steps made for later ones.
type state struct {
	org      *govcd.Org
	adminOrg *govcd.AdminOrg
	vdc      *govcd.Vdc
	catalog  *govcd.Catalog
	template *govcd.VAppTemplate
	network  *govcd.OrgVDCNetwork
	vapp     *govcd.VApp
	rawVm    *govcd.VM
	sdkVm    *govcd.VM
	sizing   *types.VdcComputePolicyV2
	edge     *govcd.NsxtEdgeGateway
	segRef   *types.OpenApiReference
	pool     *govcd.NsxtAlbPool
	vs       *govcd.NsxtAlbVirtualService
	disk     *govcd.Disk
	vappName string
	vmIP     string
	// IP Spaces: the space and gateway ids, the floating IP reserved.
	ipSpaceID     string
	ipSpaceEdgeID string
	floatingIP    string
	affinityRule  *govcd.VmAffinityRule
	// The internal disk AddInternalDisk made, for its delete.
	internalDiskID string
}

// steps is the suite, in order: what a Cluster API provider does with Cloud Director, plus the
// query service, error shapes and CloudAPI objects, each with the SDK's own calls.
func steps() []step {
	return []step{
		{"login", login},
		{"session.current", sessionCurrent},
		{"lookup.org", lookupOrg},
		{"lookup.adminOrg", lookupAdminOrg},
		{"lookup.vdc", lookupVdc},
		{"lookup.catalog", lookupCatalog},
		{"lookup.template", lookupTemplate},
		{"lookup.network", lookupNetwork},
		{"cloudapi.computePolicies.v1", computePoliciesV1},
		{"cloudapi.computePolicies.v2", computePoliciesV2},
		{"vapp.compose", composeVApp},
		{"vapp.addOrgNetwork", addOrgNetwork},
		{"vm.create.rawRecompose", createVmRaw},
		{"vm.create.addNewVM", createVmSdk},
		{"vm.extraConfig.updateExtraConfig", extraConfigSdk},
		{"vm.extraConfig.reconfigureVm", extraConfigReconfigure},
		{"vm.hardware.sizing", sizing},
		{"vm.hardware.internalDiskAdd", internalDiskAdd},
		{"vm.hardware.internalDiskDelete", internalDiskDelete},
		{"metadata.withoutDomain", metadataPlain},
		{"metadata.withDomain", metadataDomain},
		{"vm.powerOn", powerOn},
		{"vm.waitForIp", waitForIP},
		{"vm.affinityRule.create", affinityRuleCreate},
		{"vm.affinityRule.listAndUpdate", affinityRuleUpdate},
		{"vm.affinityRule.delete", affinityRuleDelete},
		{"disk.create", createDisk},
		{"disk.attach", attachDisk},
		{"disk.detach", detachDisk},
		{"disk.delete", deleteDisk},
		{"query.pagingTotals", queryPaging},
		{"query.filterOrder", queryFilterOrder},
		{"cloudapi.orgVdcNetwork", openApiNetwork},
		{"cloudapi.edgeGateway", edgeGateway},
		{"cloudapi.serviceEngineGroupAssignments", segAssignments},
		{"cloudapi.albPool.create", createPool},
		{"cloudapi.albVirtualService.create", createVirtualService},
		{"cloudapi.albVirtualService.delete", deleteVirtualService},
		{"cloudapi.albPool.delete", deletePool},
		{"cloudapi.ipSpace.lookup", ipSpaceLookup},
		{"cloudapi.ipSpace.allocateFloatingIp", ipSpaceAllocate},
		{"cloudapi.ipSpace.floatingIpSuggestions", ipSpaceSuggestions},
		{"cloudapi.ipSpace.updateAndRelease", ipSpaceRelease},
		{"vm.shutdownGuest", shutdownGuest},
		{"vm.powerOff", powerOff},
		{"vm.networkConnection.manualAndDhcp", nicModes},
		{"vm.undeploy", undeployVm},
		{"vm.delete", deleteVm},
		{"vapp.undeployAndDelete", deleteVApp},
		{"error.missingEntity", errorMissing},
		{"error.wrongPassword", errorWrongPassword},
		{"error.bogusToken", errorBogusToken},
		{"logout", logout},
	}
}
