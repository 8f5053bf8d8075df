package main

import (
	"fmt"

	types "github.com/vmware/go-vcloud-director/v2/types/v56"
)

// affinityRuleCreate keeps the two VMs apart with an anti-affinity rule; the SDK finds the rule
// again by the task owner's id in the VDC's list.
func affinityRuleCreate(r *run) (string, error) {
	if err := need(r.vdc != nil && r.rawVm != nil && r.sdkVm != nil, "the VDC and both VMs"); err != nil {
		return "", err
	}
	yes, no := true, false
	rule, err := r.vdc.CreateVmAffinityRule(&types.VmAffinityRule{
		Name:        "conformance-" + r.cfg.login,
		IsEnabled:   &yes,
		IsMandatory: &no,
		Polarity:    types.PolarityAntiAffinity,
		VmReferences: []*types.VMs{{VMReference: []*types.Reference{
			{HREF: r.rawVm.VM.HREF}, {HREF: r.sdkVm.VM.HREF},
		}}},
	})
	if err != nil {
		return "", err
	}
	r.affinityRule = rule
	return rule.VmAffinityRule.ID, nil
}

// affinityRuleUpdate lists the anti-affinity rules, makes the rule mandatory (a PUT) and reads it back.
func affinityRuleUpdate(r *run) (string, error) {
	if err := need(r.affinityRule != nil, "the affinity rule"); err != nil {
		return "", err
	}
	anti, err := r.vdc.GetVmAntiAffinityRuleList()
	if err != nil {
		return "", err
	}
	if len(anti) != 1 || len(anti[0].VmReferences) == 0 || len(anti[0].VmReferences[0].VMReference) != 2 {
		return "", fmt.Errorf("anti-affinity rules %+v, want one with two VMs", anti)
	}
	if err := r.affinityRule.SetMandatory(true); err != nil {
		return "", err
	}
	if m := r.affinityRule.VmAffinityRule.IsMandatory; m == nil || !*m {
		return "", fmt.Errorf("rule is not mandatory after the update")
	}
	return fmt.Sprintf("%d anti-affinity rule", len(anti)), nil
}

// affinityRuleDelete removes the rule; the VDC lists none after.
func affinityRuleDelete(r *run) (string, error) {
	if err := need(r.affinityRule != nil, "the affinity rule"); err != nil {
		return "", err
	}
	if err := r.affinityRule.Delete(); err != nil {
		return "", err
	}
	left, err := r.vdc.GetAllVmAffinityRuleList()
	if err != nil {
		return "", err
	}
	if len(left) != 0 {
		return "", fmt.Errorf("%d rules left after delete", len(left))
	}
	return "deleted", nil
}
