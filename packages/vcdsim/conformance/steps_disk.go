package main

import (
	"fmt"

	"github.com/vmware/go-vcloud-director/v2/govcd"
	types "github.com/vmware/go-vcloud-director/v2/types/v56"
)

// Named (independent) disks, as the VCD CSI driver uses them: created in the VDC, attached to a
// VM (which then lists it), detached, deleted.

const diskName = "conformance-pvc"

func createDisk(r *run) (string, error) {
	if err := need(r.vdc != nil, "the VDC"); err != nil {
		return "", err
	}
	task, err := r.vdc.CreateDisk(&types.DiskCreateParams{Disk: &types.Disk{Name: diskName, SizeMb: 1024}})
	if err := waitTask(task.WaitTaskCompletion, err); err != nil {
		return "", err
	}
	disk, err := r.vdc.GetDiskByHref(task.Task.Owner.HREF)
	if err != nil {
		return "", err
	}
	if disk.Disk.Name != diskName || disk.Disk.SizeMb != 1024 {
		return "", fmt.Errorf("disk %q of %d MB, want %q of 1024", disk.Disk.Name, disk.Disk.SizeMb, diskName)
	}
	r.disk = disk
	return disk.Disk.Id, nil
}

// namedDisksOf lists the named disks the VM's VmSpecSection references.
func namedDisksOf(vm *govcd.VM) ([]string, error) {
	if err := vm.Refresh(); err != nil {
		return nil, err
	}
	var names []string
	if vm.VM.VmSpecSection != nil && vm.VM.VmSpecSection.DiskSection != nil {
		for _, d := range vm.VM.VmSpecSection.DiskSection.DiskSettings {
			if d.Disk != nil {
				names = append(names, d.Disk.Name)
			}
		}
	}
	return names, nil
}

func attachDisk(r *run) (string, error) {
	if err := need(r.disk != nil && r.rawVm != nil, "the disk and a VM"); err != nil {
		return "", err
	}
	params := &types.DiskAttachOrDetachParams{Disk: &types.Reference{HREF: r.disk.Disk.HREF}}
	task, err := r.rawVm.AttachDisk(params)
	if err := waitTask(task.WaitTaskCompletion, err); err != nil {
		return "", err
	}
	names, err := namedDisksOf(r.rawVm)
	if err != nil {
		return "", err
	}
	if len(names) != 1 || names[0] != diskName {
		return "", fmt.Errorf("VM lists named disks %v, want [%s]", names, diskName)
	}
	if err := r.disk.Refresh(); err != nil {
		return "", err
	}
	hrefs, err := r.disk.GetAttachedVmsHrefs()
	if err != nil {
		return "", err
	}
	if len(hrefs) != 1 || hrefs[0] != r.rawVm.VM.HREF {
		return "", fmt.Errorf("disk attached to %v, want [%s]", hrefs, r.rawVm.VM.HREF)
	}
	return "attached, listed on the VM and the disk", nil
}

func detachDisk(r *run) (string, error) {
	if err := need(r.disk != nil && r.rawVm != nil, "the attached disk"); err != nil {
		return "", err
	}
	params := &types.DiskAttachOrDetachParams{Disk: &types.Reference{HREF: r.disk.Disk.HREF}}
	task, err := r.rawVm.DetachDisk(params)
	if err := waitTask(task.WaitTaskCompletion, err); err != nil {
		return "", err
	}
	names, err := namedDisksOf(r.rawVm)
	if err != nil {
		return "", err
	}
	if len(names) != 0 {
		return "", fmt.Errorf("VM still lists named disks %v", names)
	}
	return "detached", nil
}

func deleteDisk(r *run) (string, error) {
	if err := need(r.disk != nil, "the disk"); err != nil {
		return "", err
	}
	if err := r.disk.Refresh(); err != nil {
		return "", err
	}
	task, err := r.disk.Delete()
	if err := waitTask(task.WaitTaskCompletion, err); err != nil {
		return "", err
	}
	if _, err := r.vdc.GetDiskByHref(r.disk.Disk.HREF); err == nil {
		return "", fmt.Errorf("disk %s still there after delete", r.disk.Disk.HREF)
	}
	return "deleted", nil
}
