# SPDX-License-Identifier: GPL-2.0-only
#
# Out-of-tree build of ib_srpt. Inside a kernel tree the build uses Kbuild
# and Kconfig instead of this file.
#
#   make [modules]     build ib_srpt.ko against KDIR
#   make install       install into /lib/modules/<release>/updates + depmod
#   make uninstall     remove what make install installed + depmod
#   make deb           the Debian package ib-srpt-dkms (DKMS) in build/deb/
#   make clean
#   make check         build checks, KUnit and the QEMU guest tests
#   make check-debug   only the debug kernel, KUnit in it and its lanes
#   make check-fabric  all two-guest tests (IB/CM, multipath, failover;
#                      make check runs their smoke test)
#   make demo          boot a guest and serve a LUN over soft-RoCE
#   make man           section 9 manual pages into build/man/
#   make bench         benchmarks (tools/bench/run.sh)
#
# KDIR defaults to /lib/modules/$(uname -r)/build and, when that does not
# exist, to the newest installed /usr/src/linux-headers-6.12*-amd64.

KDIR ?= $(shell d=/lib/modules/$$(uname -r)/build; \
	if [ -d "$$d" ]; then echo "$$d"; else \
	ls -d /usr/src/linux-headers-6.12*-amd64 2>/dev/null | sort -V | tail -n1; fi)

# Only the targets that compile need a kernel tree; check, demo and bench
# install the headers themselves, so a missing tree must not stop make
# while it reads this file.
need_kdir = $(if $(KDIR),,$(error no kernel build tree found: install \
	linux-headers-6.12-amd64 (apt-get install linux-headers-6.12-amd64) \
	or set KDIR))

KERNELRELEASE_OF_KDIR = $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null)
KERNELDOC ?= $(KDIR)/scripts/kernel-doc
MANDIR ?= build/man
# The functions of the API manual; "make man MAN_FUNCTIONS=" documents all.
MAN_FUNCTIONS ?= tools/testing/documented-functions.txt
KBUILD_ARGS := -C $(KDIR) M=$(CURDIR) CONFIG_INFINIBAND_SRPT=m

.PHONY: all modules clean install uninstall deb check check-debug check-fabric demo man bench

all: modules

modules:
	$(need_kdir)
	$(MAKE) $(KBUILD_ARGS) modules

clean:
	$(if $(KDIR),$(MAKE) $(KBUILD_ARGS) clean)
	rm -rf build

# Modules go to updates/, which depmod ranks above the distribution's own
# ib_srpt. Signing is skipped: the distribution's key is not available.
install: modules
	$(need_kdir)
	$(MAKE) $(KBUILD_ARGS) INSTALL_MOD_DIR=updates CONFIG_MODULE_SIG_ALL= modules_install
	depmod -a $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) $(KERNELRELEASE_OF_KDIR)

# The file names make install may have used (modules_install compresses
# the module when the kernel's configuration says so).
INSTALLED_KO = $(addprefix $(INSTALL_MOD_PATH)/lib/modules/$(KERNELRELEASE_OF_KDIR)/updates/, \
	ib_srpt.ko ib_srpt.ko.xz ib_srpt.ko.gz ib_srpt.ko.zst)

# Leaves a DKMS installation (updates/dkms/) alone: apt remove ib-srpt-dkms
# removes that one.
uninstall:
	$(need_kdir)
	rm -f $(INSTALLED_KO)
	depmod -a $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) $(KERNELRELEASE_OF_KDIR)
	@if [ -d /var/lib/dkms/ib-srpt ]; then \
		echo "note: ib-srpt is also installed through DKMS (apt remove ib-srpt-dkms)"; fi

# The Debian package ib-srpt-dkms, built with dpkg-buildpackage from a copy
# of the files it needs in build/deb/ib-srpt-<version>/ (the .deb lands in
# build/deb/). Needs debhelper and dh-dkms; no kernel tree.
SRPT_VERSION := $(shell sed -n 's/^\#define SRPT_VERSION[[:space:]]*"\(.*\)"/\1/p' ib_srpt.h)
DEB_SRC := build/deb/ib-srpt-$(SRPT_VERSION)
DEB_FILES := debian dkms.conf Kbuild Kconfig Makefile ib_srpt.c ib_srpt.h \
	ib_srpt_trace.h ib_srpt_test.c README.md Documentation
# dm-query's sources (not a build of it), an example of the package.
DEB_DM_QUERY := tools/dm-query/dm-query.c tools/dm-query/Makefile

deb:
	rm -rf build/deb
	mkdir -p $(DEB_SRC)
	cp -a $(DEB_FILES) $(DEB_SRC)/
	mkdir -p $(DEB_SRC)/tools/dm-query
	cp $(DEB_DM_QUERY) $(DEB_SRC)/tools/dm-query/
	cd $(DEB_SRC) && dpkg-buildpackage -b -us -uc
	ls -l build/deb/*.deb

check:
	tools/testing/check.sh

check-debug:
	CHECK_DEBUG=full STAGES="debug-kernel kunit debug debug-siw" tools/testing/check.sh

check-fabric:
	STAGES="build fabric" tools/testing/check.sh

demo:
	tools/testing/demo.sh

bench:
	tools/bench/run.sh

man:
	$(need_kdir)
	tools/make-man.sh $(KERNELDOC) ib_srpt.c $(MANDIR) $(MAN_FUNCTIONS)
