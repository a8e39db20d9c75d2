# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The classroom VM (scripts/vm/, docs/vm.md):
#   make vm          kernel, initramfs and disks under build/vm/ (cached)
#   make vm-shell    boot it with a shell; leave with poweroff or Ctrl-A X
#   make vm-test     boot each kernel once, run every test in every door;
#                    then boot its shell and leave it (poweroff, reboot…)
#   make vm-image    build/classroom-vm.tar.gz: the images and run.sh
# VM_KERNELS: Debian cloud kernels ("cloud" = today's, 6.1; "6.12");
# vm-shell boots the first. VM_TESTS="stage10 shapes": vm-test runs only
# those test files in the guest.

VM_KERNELS ?= cloud 6.12
VM_KERNEL ?= $(firstword $(VM_KERNELS))
export VM_KERNELS

.PHONY: vm vm-shell vm-test vm-image
vm: all helpers solutions bench-build
	@scripts/vm/build.sh $(VM_KERNELS)

vm-shell: vm
	@scripts/vm/run.sh -k $(VM_KERNEL) shell

vm-test: all helpers solutions bench-build
	@VM_KERNELS="$(VM_KERNELS)" tests/run.sh -v tests/vm.t tests/vm_power.t

vm-image: vm
	@scripts/vm/pack.sh $(VM_KERNELS)
