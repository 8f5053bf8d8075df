package main

import (
	"fmt"
	"net/url"

	"github.com/vmware/go-vcloud-director/v2/govcd"
)

const apiVersion = "37.2"

// login: a password login (CloudAPI session, Basic user@org) or an API token exchanged for an
// access token (OAuth refresh grant), as the provider's credentials Secret allows.
func login(r *run) (string, error) {
	client, err := newClient(r.cfg)
	if err != nil {
		return "", err
	}
	if r.cfg.login == "token" {
		err = client.SetToken(r.cfg.org, govcd.ApiTokenHeader, r.cfg.apiToken)
	} else {
		err = client.Authenticate(r.cfg.user, r.cfg.password, r.cfg.org)
	}
	if err != nil {
		return "", err
	}
	if client.Client.VCDToken == "" {
		return "", fmt.Errorf("logged in but the client holds no token")
	}
	r.client = client
	return r.cfg.login + " login as " + r.cfg.user + "@" + r.cfg.org, nil
}

// sessionCurrent reads the session the token belongs to (GET /cloudapi/1.0.0/sessions/current).
func sessionCurrent(r *run) (string, error) {
	if err := need(r.client != nil, "a login"); err != nil {
		return "", err
	}
	endpoint, err := r.client.Client.OpenApiBuildEndpoint("1.0.0/sessions/current")
	if err != nil {
		return "", err
	}
	var s struct {
		ID   string                `json:"id"`
		User struct{ Name string } `json:"user"`
		Org  struct{ Name string } `json:"org"`
	}
	if err := r.client.Client.OpenApiGetItem(apiVersion, endpoint, nil, &s, nil); err != nil {
		return "", err
	}
	if s.User.Name != r.cfg.user || s.Org.Name != r.cfg.org {
		return "", fmt.Errorf("session is %s@%s, want %s@%s", s.User.Name, s.Org.Name, r.cfg.user, r.cfg.org)
	}
	return s.ID, nil
}

func lookupOrg(r *run) (string, error) {
	if err := need(r.client != nil, "a login"); err != nil {
		return "", err
	}
	org, err := r.client.GetOrgByName(r.cfg.org)
	if err != nil {
		return "", err
	}
	r.org = org
	return org.Org.ID, nil
}

// lookupAdminOrg: GET /api/admin/org/{id}, which an organization administrator may read.
func lookupAdminOrg(r *run) (string, error) {
	if err := need(r.client != nil, "a login"); err != nil {
		return "", err
	}
	admin, err := r.client.GetAdminOrgByName(r.cfg.org)
	if err != nil {
		return "", err
	}
	if admin.AdminOrg.Name != r.cfg.org {
		return "", fmt.Errorf("admin org is %q", admin.AdminOrg.Name)
	}
	r.adminOrg = admin
	return admin.AdminOrg.HREF, nil
}

func lookupVdc(r *run) (string, error) {
	if err := need(r.org != nil, "the org"); err != nil {
		return "", err
	}
	vdc, err := r.org.GetVDCByName(r.cfg.vdc, false)
	if err != nil {
		return "", err
	}
	r.vdc = vdc
	return vdc.Vdc.ID, nil
}

func lookupCatalog(r *run) (string, error) {
	if err := need(r.org != nil, "the org"); err != nil {
		return "", err
	}
	cat, err := r.org.GetCatalogByName(r.cfg.catalog, false)
	if err != nil {
		return "", err
	}
	r.catalog = cat
	return cat.Catalog.ID, nil
}

func lookupTemplate(r *run) (string, error) {
	if err := need(r.catalog != nil, "the catalog"); err != nil {
		return "", err
	}
	t, err := r.catalog.GetVAppTemplateByName(r.cfg.template)
	if err != nil {
		return "", err
	}
	if t.VAppTemplate.Children == nil || len(t.VAppTemplate.Children.VM) == 0 {
		return "", fmt.Errorf("template %s has no VM", r.cfg.template)
	}
	r.template = t
	return t.VAppTemplate.Children.VM[0].HREF, nil
}

func lookupNetwork(r *run) (string, error) {
	if err := need(r.vdc != nil, "the VDC"); err != nil {
		return "", err
	}
	n, err := r.vdc.GetOrgVdcNetworkByName(r.cfg.network, false)
	if err != nil {
		return "", err
	}
	r.network = n
	return n.OrgVDCNetwork.HREF, nil
}

// computePoliciesV1: the org's VDC compute policies through CloudAPI 1.0.0, and one by id.
func computePoliciesV1(r *run) (string, error) {
	if err := need(r.org != nil, "the org"); err != nil {
		return "", err
	}
	all, err := r.org.GetAllVdcComputePolicies(url.Values{"filter": {"name==" + r.cfg.sizing}})
	if err != nil {
		return "", err
	}
	if len(all) != 1 {
		return "", fmt.Errorf("%d policies named %s, want 1", len(all), r.cfg.sizing)
	}
	one, err := r.org.GetVdcComputePolicyById(all[0].VdcComputePolicy.ID)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s: %d CPU", one.VdcComputePolicy.ID, deref(one.VdcComputePolicy.CPUCount)), nil
}

// computePoliciesV2: the same through CloudAPI 2.0.0, kept for VM creation.
func computePoliciesV2(r *run) (string, error) {
	if err := need(r.client != nil, "a login"); err != nil {
		return "", err
	}
	all, err := r.client.GetAllVdcComputePoliciesV2(url.Values{"filter": {"name==" + r.cfg.sizing}})
	if err != nil {
		return "", err
	}
	if len(all) != 1 {
		return "", fmt.Errorf("%d policies named %s, want 1", len(all), r.cfg.sizing)
	}
	one, err := r.client.GetVdcComputePolicyV2ById(all[0].VdcComputePolicyV2.ID)
	if err != nil {
		return "", err
	}
	r.sizing = one.VdcComputePolicyV2
	return fmt.Sprintf("%s (%s)", one.VdcComputePolicyV2.ID, one.VdcComputePolicyV2.PolicyType), nil
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}
