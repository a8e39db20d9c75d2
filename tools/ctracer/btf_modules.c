// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Each module's BTF: see btf_modules.h. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include "btf_modules.h"

int btf_modules_each(struct btf *vmlinux,
		     int (*fn)(const struct btf *mod, const char *module, void *arg), void *arg)
{
	DIR *dir = opendir("/sys/kernel/btf");
	struct dirent *de;
	char path[512];
	int err = 0;

	/* no such folder: a kernel without CONFIG_DEBUG_INFO_BTF_MODULES */
	while (!err && dir && (de = readdir(dir))) {
		struct btf *mod;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "vmlinux"))
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/btf/%s", de->d_name);
		mod = btf__parse_split(path, vmlinux);
		if (!mod)
			continue;	/* unloaded meanwhile */
		err = fn(mod, de->d_name, arg);
		btf__free(mod);
	}
	if (dir)
		closedir(dir);
	return err;
}
