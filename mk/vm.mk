# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The classroom VM (scripts/vm/, docs/vm.md):
#   make vm          kernel, initramfs and disks under build/vm/ (cached)
#   make vm-shell    boot it with a shell; leave with poweroff or Ctrl-A X
#   make vm-test     boot each kernel once, run every test in every door;
#                    then boot its shell and leave it (poweroff, reboot…)
#   make vm-image    build/classroom-vm.tar.gz: the images and run.sh
#   make vm-lab      the lab: a Debian system to edit, build and run the
#                    workbook in (build/vm/lab.img, as root; VM_ARCH=arm64:
#                    build/arm64/vm/lab.img; install-deps.sh --lab-arm64 on x86)
#   make vm-lab-shell  boot it (its disk kept); make vm-lab-reset: fresh
#   make vm-lab-image  build/classroom-lab.tar.gz: the lab and run.sh
#   make vm-disk     the lab as a disk with its own boot loader (GRUB)
#                    for other VM managers, as root: x86 (BIOS)
#                    build/vm/lab.qcow2 and build/vm/lab.ova; VM_ARCH=arm64
#                    (UEFI) build/arm64/vm/lab.qcow2
# VM_KERNELS: Debian cloud kernels ("cloud" = today's, 6.1; "6.12");
# vm-shell boots the first. VM_TESTS="ctracer shapes": vm-test runs only
# those test files in the guest. make test runs only the stage tests on
# the kernels of VM_SMOKE_KERNELS (tests/vm.t); vm-test runs all, on
# every kernel from 5.10 to 7.2 unless VM_KERNELS is given.
# VM_ARCH=arm64: the aarch64 VM (qemu-system-aarch64, Debian's cloud-arm64
# kernels), its programs cross built by make ARCH=arm64, its files under
# build/arm64/vm/ (the hand-out: build/classroom-vm-arm64.tar.gz); the
# default is this host's architecture (scripts/install-deps.sh --vm-arm64
# on x86). Not ARCH=arm64: that only cross builds the programs.

VM_KERNELS ?= cloud 6.12
VM_KERNEL ?= $(firstword $(VM_KERNELS))
VM_ARCH ?= $(HOST_ARCH)
override VM_ARCH := $(call arch_name,$(VM_ARCH))
export VM_KERNELS VM_ARCH
# vm-test boots every kernel the VM knows (tests/vm.t: 5.10 to 7.2), or
# those of VM_KERNELS when it is given (make vm-test VM_KERNELS=7.2)
ifneq ($(filter command line environment,$(origin VM_KERNELS)),)
VM_TEST_KERNELS ?= $(VM_KERNELS)
endif
export VM_TEST_KERNELS

# The guest's programs: this tree's, or another architecture's build.
ifeq ($(VM_ARCH),$(HOST_ARCH))
VM_PROGRAMS := all helpers solutions bench-build
else
VM_PROGRAMS := vm-programs
endif

.PHONY: vm vm-shell vm-test vm-image vm-programs vm-lab vm-lab-image vm-lab-shell vm-lab-reset vm-disk
vm-programs:
	@$(MAKE) --no-print-directory ARCH=$(VM_ARCH)

vm: $(VM_PROGRAMS)
	@scripts/vm/build.sh $(VM_KERNELS)

vm-shell: vm
	@scripts/vm/run.sh -k $(VM_KERNEL) shell

# Every test on every kernel (make test runs a smoke set on some: vm.t).
vm-test: $(VM_PROGRAMS)
	@VM_TEST_KERNELS="$(or $(VM_TEST_KERNELS),all)" VM_SMOKE_KERNELS= VM_FULL_SKIP= \
		tests/run.sh -v tests/vm.t tests/vm_power.t

vm-image: vm
	@scripts/vm/pack.sh $(VM_KERNELS)

# The lab builds its programs itself (in its chroot). The host's are built
# first all the same, as for make vm: build.sh makes the kernels the lab
# boots and also refreshes the VM's disk.img from this tree, which without
# them would lose its programs (make vm-lab VM_ARCH=arm64: make ARCH=arm64,
# build/arm64/vm/lab.img). make test boots it only where it is built
# (tests/vm_lab.t, vm_lab_arm64.t, else a SKIP).
vm-lab: $(VM_PROGRAMS)
	@scripts/vm/build.sh $(VM_KERNELS)
	@scripts/vm/lab.sh $(VM_KERNELS)

# the lab's hand-out: build/classroom-lab.tar.gz (scripts/vm/pack.sh --lab)
vm-lab-image: vm-lab
	@scripts/vm/pack.sh --lab $(VM_KERNELS)

vm-lab-shell: vm-lab
	@scripts/vm/run.sh -k $(VM_KERNEL) --lab

vm-lab-reset:
	@scripts/vm/run.sh --reset

# make test boots both only where they are built (tests/vm_disk.t).
vm-disk: vm-lab
	@scripts/vm/disk.sh $(VM_KERNELS)
