# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Sourced by disk.sh: what its disks do differently on each architecture,
# the boot loader above all. GRUB in both, its modules and grub.cfg on the
# lab's root (/boot/grub), the kernels and initramfs in /boot:
#
#   x86    BIOS, as VirtualBox, VMware and QEMU's SeaBIOS boot by default:
#          an MBR partition table, GRUB's boot.img in the MBR and its
#          core.img in the gap before the one partition (grub-pc-bin)
#   arm64  UEFI, the only firmware of UTM's, virt-manager's and QEMU's
#          arm64 machines: a GPT, an EFI system partition (FAT32) with
#          GRUB as \EFI\BOOT\BOOTAA64.EFI (the path a firmware boots on a
#          disk it has no boot entry for), then the root. GRUB's modules
#          from Debian's grub-efi-arm64-bin of the host's GRUB version
#          (an arm64 host's own; else its .deb, fetched and unpacked into
#          $VM/grub/, never installed); the host's grub-mkimage builds it.
#
# Sets CON (the kernel's serial console), DISKS (what disk.sh makes),
# GRUB_TARGET and BOOT_TOOLS (more of disk.sh's preflight, as its own
# TOOL:PACKAGE:OPTION); defines
#   boot_grub            GRUB_DIR: GRUB's modules for GRUB_TARGET
#   boot_terminal        grub.cfg's terminal lines
#   boot_disk RAW FS MB  RAW: a partitioned disk, bootable, FS (MB MiB)
#                        in its root partition; W/core.cfg: the config
#                        GRUB's image starts with
# LAB_OPT: install-deps.sh's option for the lab of VM_ARCH on this host.

case $VM_ARCH in
x86)
	CON=ttyS0 GRUB_TARGET=i386-pc DISKS="lab.qcow2 lab.ova"
	BOOT_TOOLS="sfdisk:fdisk:$LAB_OPT"

	boot_grub() {
		GRUB_DIR=/usr/lib/grub/i386-pc
		[ -f "$GRUB_DIR/boot.img" ] ||
			cannot "GRUB for BIOS missing: scripts/install-deps.sh $LAB_OPT installs it (Debian's grub-pc-bin)"
	}

	boot_terminal() {
		echo "serial --unit=0 --speed=115200"
		echo "terminal_input console serial"
		echo "terminal_output console serial"
	}

	# the disk: MBR, core.img in sectors 1 to 2047, the partition from 1 MiB
	boot_disk() {
		truncate -s $(($3 + 1))M "$1"
		echo "start=2048, type=83, bootable" | sfdisk -q "$1" || die "sfdisk failed"
		dd if="$2" of="$1" bs=1M seek=1 conv=notrunc,sparse status=none
		grub-mkimage -O i386-pc -d "$GRUB_DIR" -c "$W/core.cfg" -p /boot/grub \
			-o "$W/core.img" biosdisk part_msdos ext2 search search_label \
			normal configfile linux serial terminal echo test gzio
		[ "$(stat -c %s "$W/core.img")" -le $((2047 * 512)) ] || die "core.img too large"
		# boot.img's code (the partition table after it stays) loads
		# sector 1, core.img's first sector, which lists its others
		dd if="$GRUB_DIR/boot.img" of="$1" bs=440 count=1 conv=notrunc status=none
		dd if="$W/core.img" of="$1" bs=512 seek=1 conv=notrunc status=none
	}
	;;
arm64)
	# the firmware prints on the serial port and the screen both: GRUB's
	# console (the firmware's) is on both already
	CON=ttyAMA0 GRUB_TARGET=arm64-efi DISKS=lab.qcow2
	# FAT32 wants 65525 clusters at least: 64 MiB of 512-byte ones
	ESP_MB=64
	BOOT_TOOLS="sfdisk:fdisk:$LAB_OPT mkfs.fat:dosfstools:$LAB_OPT
		mmd:mtools:$LAB_OPT mcopy:mtools:$LAB_OPT dpkg-deb:dpkg:"

	boot_grub() {
		GRUB_DIR=/usr/lib/grub/arm64-efi
		[ -f "$GRUB_DIR/kernel.img" ] && return 0
		# grub-mkimage and the modules of one GRUB version
		_v=$(dpkg-query -W -f='${Version}' grub-common 2>/dev/null) ||
			cannot "grub-common's version unknown (dpkg-query)"
		GRUB_DIR=$VM/grub/arm64-efi
		[ -f "$GRUB_DIR/kernel.img" ] && [ "$(cat "$VM/grub/version" 2>/dev/null)" = "$_v" ] &&
			return 0
		mkdir -p "$VM/debs"
		# apt's name for it (an epoch's colon as %3a)
		_d=$VM/debs/grub-efi-arm64-bin_$(echo "$_v" | sed 's/:/%3a/')_arm64.deb
		if [ ! -f "$_d" ]; then
			echo "  APT      grub-efi-arm64-bin $_v (arm64)" >&2
			(cd "$VM/debs" && apt-get download -q -o APT::Sandbox::User=root \
				"grub-efi-arm64-bin:arm64=$_v" >/dev/null) && [ -f "$_d" ] ||
				cannot "cannot download grub-efi-arm64-bin:arm64=$_v (scripts/install-deps.sh --lab-arm64 adds arm64 to dpkg's architectures)"
		fi
		rm -rf "$VM/grub" && mkdir -p "$VM/grub"
		dpkg-deb --fsys-tarfile "$_d" |
			tar -x -C "$VM/grub" --strip-components=4 \
				--exclude='*/monolithic' ./usr/lib/grub/arm64-efi &&
			[ -f "$GRUB_DIR/kernel.img" ] || cannot "cannot unpack $_d"
		echo "$_v" >"$VM/grub/version"
	}

	boot_terminal() {
		:
	}

	# the disk: GPT, the EFI system partition from 1 MiB, the root after
	# it, the GPT's backup in the last MiB
	boot_disk() {
		_esp=$W/esp.fat
		truncate -s ${ESP_MB}M "$_esp"
		mkfs.fat -F 32 -n EFI "$_esp" >/dev/null || die "mkfs.fat failed"
		grub-mkimage -O arm64-efi -d "$GRUB_DIR" -c "$W/core.cfg" -p /boot/grub \
			-o "$W/grub.efi" part_gpt ext2 search search_label normal \
			configfile linux echo test gzio efi_gop ||
			die "grub-mkimage -O arm64-efi failed"
		mmd -i "$_esp" ::/EFI ::/EFI/BOOT &&
			mcopy -i "$_esp" "$W/grub.efi" ::/EFI/BOOT/BOOTAA64.EFI ||
			die "cannot copy GRUB into the EFI system partition"
		truncate -s $((1 + ESP_MB + $3 + 1))M "$1"
		printf 'label: gpt\nstart=2048, size=%d, type=U, name="EFI system"\nstart=%d, size=%d, type=L, name=lab\n' \
			$((ESP_MB * 2048)) $(((1 + ESP_MB) * 2048)) $(($3 * 2048)) |
			sfdisk -q "$1" || die "sfdisk failed"
		dd if="$_esp" of="$1" bs=1M seek=1 conv=notrunc,sparse status=none
		dd if="$2" of="$1" bs=1M seek=$((1 + ESP_MB)) conv=notrunc,sparse status=none
		rm -f "$_esp"
	}
	;;
esac
