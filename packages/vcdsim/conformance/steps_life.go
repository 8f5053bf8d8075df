package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	types "github.com/vmware/go-vcloud-director/v2/types/v56"
)

// powerOn powers both VMs on, each task waited.
func powerOn(r *run) (string, error) {
	if err := need(r.rawVm != nil && r.sdkVm != nil, "both VMs"); err != nil {
		return "", err
	}
	for _, vm := range []*struct {
		name string
		do   func() error
	}{
		{rawVmName, func() error { t, err := r.rawVm.PowerOn(); return waitTask(t.WaitTaskCompletion, err) }},
		{sdkVmName, func() error { t, err := r.sdkVm.PowerOn(); return waitTask(t.WaitTaskCompletion, err) }},
	} {
		if err := vm.do(); err != nil {
			return "", fmt.Errorf("%s: %w", vm.name, err)
		}
	}
	if err := r.rawVm.Refresh(); err != nil {
		return "", err
	}
	if r.rawVm.VM.Status != 4 {
		return "", fmt.Errorf("status %d after power on, want 4", r.rawVm.VM.Status)
	}
	return "both on", nil
}

func waitTask(wait func() error, err error) error {
	if err != nil {
		return err
	}
	return wait()
}

// waitForIP polls the VM, as a provider does, until its primary NIC shows an address.
func waitForIP(r *run) (string, error) {
	if err := need(r.rawVm != nil, "the raw-recompose VM"); err != nil {
		return "", err
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if err := r.rawVm.Refresh(); err != nil {
			return "", err
		}
		if s := r.rawVm.VM.NetworkConnectionSection; s != nil {
			for _, c := range s.NetworkConnection {
				if c.NetworkConnectionIndex == s.PrimaryNetworkConnectionIndex && c.IPAddress != "" {
					r.vmIP = c.IPAddress
					return c.IPAddress, nil
				}
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return "", fmt.Errorf("no IP on the primary NIC within 60 s")
}

// queryPaging: vm records page by page (pageSize 1) agree with the total every page reports and
// with the SDK's own cumulative query.
func queryPaging(r *run) (string, error) {
	if err := need(r.org != nil && r.rawVm != nil, "the org and a VM"); err != nil {
		return "", err
	}
	var names []string
	total := -1
	for page := 1; page <= 50; page++ {
		res, err := r.client.QueryWithNotEncodedParams(nil, map[string]string{
			"type": "vm", "format": "records", "pageSize": "1", "page": strconv.Itoa(page),
		})
		if err != nil {
			return "", fmt.Errorf("page %d: %w", page, err)
		}
		if total >= 0 && res.Results.Total != float64(total) {
			return "", fmt.Errorf("page %d says total %v, page 1 said %d", page, res.Results.Total, total)
		}
		total = int(res.Results.Total)
		for _, v := range res.Results.VMRecord {
			names = append(names, v.Name)
		}
		if page*1 >= total {
			break
		}
	}
	if len(names) != total {
		return "", fmt.Errorf("%d records over the pages, total says %d", len(names), total)
	}
	all, err := r.org.QueryVmList(types.VmQueryFilterAll)
	if err != nil {
		return "", err
	}
	if len(all) != total {
		return "", fmt.Errorf("QueryVmList found %d, paging total %d", len(all), total)
	}
	return fmt.Sprintf("total %d", total), nil
}

// queryFilterOrder: the same FIQL conditions in every order select the same record.
func queryFilterOrder(r *run) (string, error) {
	if err := need(r.vapp != nil && r.rawVm != nil, "the vApp and the raw-recompose VM"); err != nil {
		return "", err
	}
	conds := []string{"containerName==" + r.vapp.VApp.Name, "name==" + rawVmName, "isVAppTemplate==false"}
	orders := permutations(conds)
	for _, order := range orders {
		filter := strings.Join(order, ";")
		res, err := r.client.QueryWithNotEncodedParams(nil, map[string]string{
			"type": "vm", "format": "records", "filter": filter,
		})
		if err != nil {
			return "", err
		}
		recs := res.Results.VMRecord
		if len(recs) != 1 || recs[0].HREF != r.rawVm.VM.HREF {
			return "", fmt.Errorf("filter %q found %d records, want only %s", filter, len(recs), rawVmName)
		}
	}
	return fmt.Sprintf("%d orders agree", len(orders)), nil
}

// permutations lists every order of the items.
func permutations(items []string) [][]string {
	if len(items) <= 1 {
		return [][]string{items}
	}
	var out [][]string
	for i, first := range items {
		rest := append(append([]string{}, items[:i]...), items[i+1:]...)
		for _, p := range permutations(rest) {
			out = append(out, append([]string{first}, p...))
		}
	}
	return out
}

func powerOff(r *run) (string, error) {
	if err := need(r.rawVm != nil && r.sdkVm != nil, "both VMs"); err != nil {
		return "", err
	}
	t, err := r.rawVm.PowerOff()
	if err := waitTask(t.WaitTaskCompletion, err); err != nil {
		return "", err
	}
	if err := r.rawVm.Refresh(); err != nil {
		return "", err
	}
	if r.rawVm.VM.Status != 8 {
		return "", fmt.Errorf("status %d after power off, want 8", r.rawVm.VM.Status)
	}
	return "off", nil
}

// undeployVm undeploys the VM still on (undeploy powers it off).
func undeployVm(r *run) (string, error) {
	if err := need(r.sdkVm != nil, "the AddNewVM VM"); err != nil {
		return "", err
	}
	t, err := r.sdkVm.Undeploy()
	if err := waitTask(t.WaitTaskCompletion, err); err != nil {
		return "", err
	}
	if err := r.sdkVm.Refresh(); err != nil {
		return "", err
	}
	if r.sdkVm.VM.Deployed || r.sdkVm.VM.Status != 8 {
		return "", fmt.Errorf("deployed=%v status=%d after undeploy", r.sdkVm.VM.Deployed, r.sdkVm.VM.Status)
	}
	return "undeployed", nil
}

// deleteVm deletes the raw VM (VM.Delete waits for its task) and checks it is gone.
func deleteVm(r *run) (string, error) {
	if err := need(r.rawVm != nil && r.vapp != nil, "the VM and vApp"); err != nil {
		return "", err
	}
	if t, err := r.rawVm.Undeploy(); err == nil {
		_ = t.WaitTaskCompletion() // powered off but maybe still deployed
	}
	if err := r.rawVm.Delete(); err != nil {
		return "", err
	}
	if _, err := r.vapp.GetVMByName(rawVmName, true); err == nil {
		return "", fmt.Errorf("VM %s still in the vApp after delete", rawVmName)
	}
	return "deleted", nil
}

func deleteVApp(r *run) (string, error) {
	if err := need(r.vapp != nil, "the vApp"); err != nil {
		return "", err
	}
	if err := r.vapp.Refresh(); err != nil {
		return "", err
	}
	if r.vapp.VApp.Deployed {
		t, err := r.vapp.Undeploy()
		if err := waitTask(t.WaitTaskCompletion, err); err != nil {
			return "", fmt.Errorf("undeploy: %w", err)
		}
	}
	t, err := r.vapp.Delete()
	if err := waitTask(t.WaitTaskCompletion, err); err != nil {
		return "", err
	}
	if _, err := r.vdc.GetVAppByName(r.vappName, true); err == nil {
		return "", fmt.Errorf("vApp %s still there after delete", r.vappName)
	}
	return "deleted", nil
}
