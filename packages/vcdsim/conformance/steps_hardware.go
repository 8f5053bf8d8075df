package main

import (
	"fmt"
	"net/http"

	types "github.com/vmware/go-vcloud-director/v2/types/v56"
)

// A VM's own sizing and disks, as a provider sets them on a Flex VDC (no sizing policy), and the
// guest shutdown a graceful delete asks for.

// sizing changes CPU, cores per socket and memory of the powered-off raw-recompose VM through its
// VmSpecSection (the SDK leaves the DiskSection out, so no disk changes).
func sizing(r *run) (string, error) {
	if err := need(r.rawVm != nil, "the raw-recompose VM"); err != nil {
		return "", err
	}
	if err := r.rawVm.Refresh(); err != nil {
		return "", err
	}
	if err := r.rawVm.ChangeCPU(4, 2); err != nil {
		return "", err
	}
	if err := r.rawVm.Refresh(); err != nil {
		return "", err
	}
	if err := r.rawVm.ChangeMemory(3072); err != nil {
		return "", err
	}
	if err := r.rawVm.Refresh(); err != nil {
		return "", err
	}
	s := r.rawVm.VM.VmSpecSection
	if s == nil || s.NumCpus == nil || *s.NumCpus != 4 || s.NumCoresPerSocket == nil || *s.NumCoresPerSocket != 2 ||
		s.MemoryResourceMb == nil || s.MemoryResourceMb.Configured != 3072 {
		return "", fmt.Errorf("VmSpecSection after the change: %+v", s)
	}
	return "4 CPUs, 2 per socket, 3072 MB", nil
}

// internalDiskAdd adds a 2 GB disk on a paravirtual controller at bus 1 unit 0 (AddInternalDisk
// sends the whole DiskSection back with the new disk) and finds it by the id VCD gave it.
func internalDiskAdd(r *run) (string, error) {
	if err := need(r.rawVm != nil, "the raw-recompose VM"); err != nil {
		return "", err
	}
	if err := r.rawVm.Refresh(); err != nil {
		return "", err
	}
	thin := true
	id, err := r.rawVm.AddInternalDisk(&types.DiskSettings{
		SizeMb: 2048, AdapterType: "5", BusNumber: 1, UnitNumber: 0,
		ThinProvisioned: &thin, StorageProfile: r.rawVm.VM.StorageProfile,
	})
	if err != nil {
		return "", err
	}
	disk, err := r.rawVm.GetInternalDiskById(id, true)
	if err != nil {
		return "", err
	}
	if disk.SizeMb != 2048 || disk.AdapterType != "5" || disk.BusNumber != 1 || disk.UnitNumber != 0 {
		return "", fmt.Errorf("disk %s: %+v", id, disk)
	}
	r.internalDiskID = id
	return id, nil
}

// internalDiskDelete removes the disk AddInternalDisk made: DeleteInternalDisk sends the
// DiskSection without it, and VCD removes what the section leaves out; the other disks keep
// their ids.
func internalDiskDelete(r *run) (string, error) {
	if err := need(r.rawVm != nil && r.internalDiskID != "", "the added internal disk"); err != nil {
		return "", err
	}
	before := len(r.rawVm.VM.VmSpecSection.DiskSection.DiskSettings)
	if err := r.rawVm.DeleteInternalDisk(r.internalDiskID); err != nil {
		return "", err
	}
	if _, err := r.rawVm.GetInternalDiskById(r.internalDiskID, true); err == nil {
		return "", fmt.Errorf("disk %s still listed after its delete", r.internalDiskID)
	}
	after := len(r.rawVm.VM.VmSpecSection.DiskSection.DiskSettings)
	if after != before-1 {
		return "", fmt.Errorf("%d disks after the delete, %d before", after, before)
	}
	return fmt.Sprintf("%d disks left", after), nil
}

// shutdownGuest asks the AddNewVM VM's guest to shut down (power/action/shutdown): the VM ends
// powered off and still deployed, as after a power-off.
func shutdownGuest(r *run) (string, error) {
	if err := need(r.sdkVm != nil, "the AddNewVM VM"); err != nil {
		return "", err
	}
	t, err := r.client.Client.ExecuteTaskRequest(r.sdkVm.VM.HREF+"/power/action/shutdown", http.MethodPost,
		"", "error shutting the guest down: %s", nil)
	if err := waitTask(t.WaitTaskCompletion, err); err != nil {
		return "", err
	}
	if err := r.sdkVm.Refresh(); err != nil {
		return "", err
	}
	if r.sdkVm.VM.Status != 8 || !r.sdkVm.VM.Deployed {
		return "", fmt.Errorf("status %d deployed %v after the guest shut down, want 8 and deployed",
			r.sdkVm.VM.Status, r.sdkVm.VM.Deployed)
	}
	return "off, deployed", nil
}
