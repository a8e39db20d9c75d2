#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The lab as a disk other VM managers boot (docs/vm.md, "The lab as a
# bootable disk"): lab.sh's lab.img with a kernel, an initramfs and GRUB
# of its own, cached under build/vm/ (VM_ARCH=arm64: build/arm64/vm/):
#
#   scripts/vm/disk.sh [KERNEL...]     (default: cloud; make vm-disk)
#   VM_ARCH=arm64 scripts/vm/disk.sh   (make vm-disk VM_ARCH=arm64)
#
#   lab.qcow2   virt-manager, GNOME Boxes, QEMU, UTM (compressed)
#   lab.ova     x86 only: VirtualBox, VMware: lab.ovf, lab.mf (the
#               SHA-256 sums of the others), lab-disk1.vmdk
#               (streamOptimized)
#
# x86: BIOS with GRUB (Debian's grub-pc-bin): what VirtualBox and VMware
# boot by default, and QEMU's SeaBIOS too; arm64: UEFI with GRUB
# (grub-efi-arm64-bin) on an EFI system partition. The root file system
# is ext4 labelled lab, as lab.img; scripts/vm/disk-boot.sh partitions
# the disk and installs the boot loader of each. The initramfs
# (scripts/vm/disk-init) loads the disk drivers and starts busybox init
# on the lab's root; scripts/vm/guest/lab-rc prepares what run.sh --lab's
# init does and gives a root shell on the serial and the VGA console.
# Every KERNEL must be in lab.img (make vm-lab with the same kernels).
# As root (a loop mount of the file system). Its work is in
# build/vm/disk.tmp/, removed at the end, on Ctrl-C or kill, else by the
# next run. Exit 2: bad arguments; 3: this host cannot.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/scripts/vm/arch.sh"

# room for a student's builds and the scratch file, on top of lab.img's
EXTRA_MB=1024
SCRATCH_MB=256
# what a VM manager's disk may hang on (missing ones are left out): IDE
# (VirtualBox's and VMware's OVF import, QEMU's default), SATA, virtio
# (virt-manager, UTM), VMware's paravirtual SCSI; NVMe is built in
DISK_MODULES="ata_piix ata_generic ahci sd_mod virtio_pci virtio_blk
virtio_scsi vmw_pvscsi"
MEM_MB=2048
CPUS=2

die() {
	echo "vm disk: $*" >&2
	exit 1
}

cannot() {
	echo "vm disk: $*" >&2
	exit 3
}

usage() {
	echo "usage: disk.sh [KERNEL...]   (KERNEL: cloud, 6.12 ... as make vm-lab built them; default cloud)" >&2
	exit 2
}

# mods DIR: DIR's DISK_MODULES with what each needs first (modules.dep
# lists those in the order modprobe loads them backwards), as paths
mods() {
	for _m in $DISK_MODULES; do
		awk -v m="$_m" '{
			sub(/:$/, "", $1)
			n = $1
			sub(/.*\//, "", n)
			sub(/\.ko.*/, "", n)
			gsub(/-/, "_", n)
		}
		n == m { for (i = NF; i > 1; i--) print $i; print $1 }' "$1/modules.dep"
	done | awk '!seen[$0]++'
}

# modcat FILE: a module uncompressed (busybox insmod reads plain .ko)
modcat() {
	case "$1" in
	*.xz) xz -dc "$1" ;;
	*.zst) zstd -dcq "$1" ;;
	*.gz) gzip -dc "$1" ;;
	*) cat "$1" ;;
	esac
}

# initrd KVER OUT: busybox (the lab's own), disk-init, KVER's disk drivers
initrd() {
	_i=$W/initrd
	rm -rf "$_i" && mkdir -p "$_i/bin" "$_i/lib/modules" "$_i/dev" \
		"$_i/proc" "$_i/sys" "$_i/newroot"
	cp "$m/bin/busybox" "$_i/bin/busybox"
	cp "$ROOT/scripts/vm/disk-init" "$_i/init"
	chmod 755 "$_i/init"
	# the kernel opens it for init's output before init mounts /dev
	mknod -m 600 "$_i/dev/console" c 5 1
	_md=$m/lib/modules/$1
	: >"$_i/lib/modules/order"
	for _f in $(mods "$_md"); do
		_n=$(basename "$_f" | sed 's/\.ko.*//')
		modcat "$_md/$_f" >"$_i/lib/modules/$_n.ko"
		echo "$_n" >>"$_i/lib/modules/order"
	done
	(cd "$_i" && find . | cpio -o -H newc --quiet -R 0:0) | gzip -6 >"$2"
	rm -rf "$_i"
}

# ovf CAPACITY VMDK-SIZE: the OVF descriptor: 2 CPUs, MEM_MB, the disk on
# an IDE controller (PIIX4: the cloud kernels' ata_piix; 6.1 has no AHCI)
ovf() {
	cat <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<Envelope xmlns="http://schemas.dmtf.org/ovf/envelope/1"
    xmlns:ovf="http://schemas.dmtf.org/ovf/envelope/1"
    xmlns:rasd="http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_ResourceAllocationSettingData"
    xmlns:vssd="http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_VirtualSystemSettingData"
    xmlns:vmw="http://www.vmware.com/schema/ovf">
  <References>
    <File ovf:id="file1" ovf:href="lab-disk1.vmdk" ovf:size="$2"/>
  </References>
  <DiskSection>
    <Info>The lab's disk</Info>
    <Disk ovf:diskId="vmdisk1" ovf:fileRef="file1" ovf:capacity="$1"
        ovf:capacityAllocationUnits="byte"
        ovf:format="http://www.vmware.com/interfaces/specifications/vmdk.html#streamOptimized"/>
  </DiskSection>
  <VirtualSystem ovf:id="bpf-storage-lab">
    <Info>Tracing the Linux storage stack with BPF: the workbook's lab</Info>
    <Name>bpf-storage-lab</Name>
    <OperatingSystemSection ovf:id="96" vmw:osType="otherLinux64Guest">
      <Info>Debian 12, 64-bit</Info>
    </OperatingSystemSection>
    <VirtualHardwareSection>
      <Info>2 CPUs, $MEM_MB MB, one IDE disk</Info>
      <System>
        <vssd:ElementName>Virtual Hardware Family</vssd:ElementName>
        <vssd:InstanceID>0</vssd:InstanceID>
        <vssd:VirtualSystemIdentifier>bpf-storage-lab</vssd:VirtualSystemIdentifier>
        <vssd:VirtualSystemType>vmx-10</vssd:VirtualSystemType>
      </System>
      <Item>
        <rasd:AllocationUnits>hertz * 10^6</rasd:AllocationUnits>
        <rasd:Description>Number of virtual CPUs</rasd:Description>
        <rasd:ElementName>$CPUS virtual CPUs</rasd:ElementName>
        <rasd:InstanceID>1</rasd:InstanceID>
        <rasd:ResourceType>3</rasd:ResourceType>
        <rasd:VirtualQuantity>$CPUS</rasd:VirtualQuantity>
      </Item>
      <Item>
        <rasd:AllocationUnits>byte * 2^20</rasd:AllocationUnits>
        <rasd:Description>Memory Size</rasd:Description>
        <rasd:ElementName>$MEM_MB MB of memory</rasd:ElementName>
        <rasd:InstanceID>2</rasd:InstanceID>
        <rasd:ResourceType>4</rasd:ResourceType>
        <rasd:VirtualQuantity>$MEM_MB</rasd:VirtualQuantity>
      </Item>
      <Item>
        <rasd:Address>0</rasd:Address>
        <rasd:Description>IDE Controller</rasd:Description>
        <rasd:ElementName>ideController0</rasd:ElementName>
        <rasd:InstanceID>3</rasd:InstanceID>
        <rasd:ResourceSubType>PIIX4</rasd:ResourceSubType>
        <rasd:ResourceType>5</rasd:ResourceType>
      </Item>
      <Item>
        <rasd:AddressOnParent>0</rasd:AddressOnParent>
        <rasd:ElementName>disk0</rasd:ElementName>
        <rasd:HostResource>ovf:/disk/vmdisk1</rasd:HostResource>
        <rasd:InstanceID>4</rasd:InstanceID>
        <rasd:Parent>3</rasd:Parent>
        <rasd:ResourceType>17</rasd:ResourceType>
      </Item>
    </VirtualHardwareSection>
  </VirtualSystem>
</Envelope>
EOF
}

# ova DIR OUT: DIR's lab.ovf and lab-disk1.vmdk, with their manifest
# lab.mf (SHA-256), as an OVA: a ustar archive in the order OVF 1.1 and
# 2.0 ask (DSP0243, "OVF package"): the descriptor, the manifest, then
# the References' files (the disk), so that an importer reading it as a
# stream has the sums before the disk comes
ova() {
	(cd "$1" && sha256sum lab.ovf lab-disk1.vmdk |
		awk '{ printf "SHA256(%s)= %s\n", $2, $1 }' >lab.mf) &&
		tar -c --format=ustar --owner=0 --group=0 -f "$2" -C "$1" \
			lab.ovf lab.mf lab-disk1.vmdk
}

# unmount: W's mount point unmounted and every loop device over a file in
# W detached. Under the lock (below) they are this run's, or those of a
# run killed before its trap could run (kill -9): never another program's.
unmount() {
	if mountpoint -q "$W/mnt" && ! umount "$W/mnt"; then
		echo "vm disk: cannot unmount $W/mnt (busy?): left mounted" >&2
		return 1
	fi
	# BACK-FILE: the file's path (" (deleted)" after it once removed)
	losetup -n -l -O NAME,BACK-FILE | while read -r _dev _file; do
		case $_file in
		"$W"/*) losetup -d "$_dev" || echo "vm disk: cannot detach $_dev" >&2 ;;
		esac
	done
}

# cleanup: unmount, then W removed; not while it holds a mount: rm -r
# would go down into the lab's file system
cleanup() {
	unmount || return 1
	rm -rf --one-file-system "$W"
}

# on_exit: cleanup, the script's status kept (1 if it was 0 but cleanup
# left something). A second Ctrl-C does not cut the cleanup short.
on_exit() {
	_st=$?
	trap '' HUP INT TERM
	cleanup || [ "$_st" -ne 0 ] || _st=1
	exit "$_st"
}

# the arguments first: a mistake costs nothing yet. Kernels are the names
# of links in build/vm/ (cloud, 6.12): no option, no path.
for k in "$@"; do
	case $k in
	-* | */* | '') usage ;;
	esac
done

# x86's GRUB for BIOS is the host's: an x86 host's only
[ "$VM_ARCH" = arm64 ] || [ -z "$FOREIGN" ] ||
	cannot "an x86 lab disk is made on an x86 host (GRUB for BIOS: grub-pc-bin)"
[ "$(id -u)" -eq 0 ] || cannot "needs root (a loop mount)"
LAB_OPT=--lab${FOREIGN:+-$VM_ARCH}
. "$ROOT/scripts/vm/disk-boot.sh"
# Preflight: every tool before any work, each as TOOL:PACKAGE:OPTION, its
# Debian package and the scripts/install-deps.sh option that installs it
# (none: install-deps.sh alone). xz and zstd unpack the kernels' modules
# (modcat: Debian's 6.12 and later ship .ko.xz).
for t in qemu-img:qemu-utils:$LAB_OPT grub-mkimage:grub-common:$LAB_OPT \
	xz:xz-utils:$LAB_OPT zstd:zstd:--vm \
	mkfs.ext4:e2fsprogs:--vm e2fsck:e2fsprogs:--vm resize2fs:e2fsprogs:--vm \
	cpio:cpio:--vm mountpoint:util-linux: flock:util-linux: $BOOT_TOOLS; do
	tool=${t%%:*} opt=${t##*:} pkg=${t#*:}
	pkg=${pkg%:*}
	command -v "$tool" >/dev/null 2>&1 ||
		cannot "$tool missing: scripts/install-deps.sh${opt:+ $opt} installs it (Debian's $pkg)"
done
[ -f "$VM/lab.img" ] || cannot "no lab image (make vm-lab${FOREIGN:+ VM_ARCH=$VM_ARCH})"
[ $# -gt 0 ] || set -- cloud
kvers=$(for k in "$@"; do
	readlink "$VM/$k" || cannot "kernel $k is not built (make vm-lab)"
done)

# The work folder has a fixed name, so that a run killed outright (kill
# -9, the host's crash) leaves its mount and loop device where the next
# run finds them; the lock makes the folder one run's at a time.
W=$VM/disk.tmp
exec 9>"$VM/.disk.lock"
flock -n 9 || {
	echo "vm disk: another disk.sh is running: waiting for it" >&2
	flock 9
}
cleanup || cannot "a killed run's $W is still mounted: umount it"
boot_grub
# From here on, whatever ends the run undoes its work: exit, Ctrl-C
# (INT), kill (TERM), a closed terminal (HUP). A shell killed by a signal
# runs no EXIT trap: each exits instead, with 128 + the signal's number.
trap on_exit EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

hash=$({
	cat "$VM/.lab.inputs"
	echo "$kvers"
	cat "$0" "$ROOT/scripts/vm/disk-boot.sh" "$ROOT/scripts/vm/disk-init" \
		"$ROOT/scripts/vm/guest/lab-rc" "$GRUB_DIR/kernel.img"
} | sha256sum)
built() {
	for _o in $DISKS; do
		[ -f "$VM/$_o" ] || return 1
	done
	[ "$(cat "$VM/.disk-img.inputs" 2>/dev/null)" = "$hash" ]
}
built && exit 0

echo "  LABDISK  ${VM#"$ROOT"/}/$(echo $DISKS | sed 's/ /, /g')" >&2
t0=$(date +%s)
mkdir -p "$W"
fs=$W/lab.fs
m=$W/mnt
cp --sparse=always "$VM/lab.img" "$fs"
e2fsck -fp "$fs" >/dev/null || die "lab.img does not check clean"
fs_mb=$(($(stat -c %s "$fs") / 1048576 + EXTRA_MB))
resize2fs -f "$fs" "${fs_mb}M" >/dev/null 2>&1 || die "resize2fs failed"

mkdir -p "$m"
# a loop device of its own (not mount -o loop): unmount detaches it
# without waiting for the kernel's autoclear
loop=$(losetup -f --show "$fs") && mount "$loop" "$m" ||
	cannot "cannot mount a loop device here"
for kv in $kvers; do
	[ -d "$m/lib/modules/$kv" ] || die "lab.img has no modules of $kv (make vm-lab $*)"
	cp "$VM/$kv/vmlinuz" "$m/boot/vmlinuz-$kv"
	initrd "$kv" "$m/boot/initrd.img-$kv"
done
install -m 755 "$ROOT/scripts/vm/guest/lab-rc" "$m/usr/local/sbin/lab-rc"
# busybox init: no systemd to start, as run.sh --lab's boot
cat >"$m/etc/inittab" <<EOF
::sysinit:/usr/local/sbin/lab-rc start
::respawn:/usr/local/sbin/lab-rc console $CON
::respawn:/usr/local/sbin/lab-rc console tty1
::ctrlaltdel:/bin/busybox reboot
::shutdown:/usr/local/sbin/lab-rc stop
EOF
mkdir -p "$m/var/lib/workbook" "$m/mnt/scratch"
mkfs.ext4 -q -F -L scratch -E lazy_itable_init=0,lazy_journal_init=0 \
	"$m/var/lib/workbook/scratch.img" "${SCRATCH_MB}M" >/dev/null

# GRUB: its modules on the lab's root, its menu on both consoles
mkdir -p "$m/boot/grub/$GRUB_TARGET"
cp "$GRUB_DIR"/*.mod "$GRUB_DIR"/*.lst "$m/boot/grub/$GRUB_TARGET/"
{
	boot_terminal
	echo "set timeout=2"
	for kv in $kvers; do
		echo "menuentry 'Workbook lab, Linux $kv' {"
		echo "	linux /boot/vmlinuz-$kv root=LABEL=lab console=tty0 console=$CON,115200 quiet panic=10"
		echo "	initrd /boot/initrd.img-$kv"
		echo "}"
	done
} >"$m/boot/grub/grub.cfg"
unmount || die "cannot unmount the lab's file system"
e2fsck -fp "$fs" >/dev/null || die "the lab disk's file system does not check clean"

# The disk: its partitions, the file system in one, the boot loader
raw=$W/raw
printf 'search --no-floppy --label lab --set=root\nset prefix=($root)/boot/grub\n' \
	>"$W/core.cfg"
boot_disk "$raw" "$fs" "$fs_mb"
rm -f "$fs"

qemu-img convert -c -f raw -O qcow2 "$raw" "$W/lab.qcow2"
case " $DISKS " in
*" lab.ova "*)
	o=$W/ova.d
	mkdir -p "$o"
	qemu-img convert -f raw -O vmdk -o subformat=streamOptimized,adapter_type=ide \
		"$raw" "$o/lab-disk1.vmdk"
	ovf "$(stat -c %s "$raw")" "$(stat -c %s "$o/lab-disk1.vmdk")" >"$o/lab.ovf"
	ova "$o" "$W/lab.ova" || die "cannot pack lab.ova"
	;;
esac
for o in $DISKS; do
	mv "$W/$o" "$VM/$o"
done
echo "$hash" >"$VM/.disk-img.inputs"
echo "  LABDISK  took $(($(date +%s) - t0)) s:$(for o in $DISKS; do
	printf ' %s %s MiB' "$o" "$(du -m "$VM/$o" | cut -f1)"
done)" >&2
