# SPDX-License-Identifier: GPL-2.0-only
#
# Out-of-tree build of ib_srpt. Inside a kernel tree the build uses Kbuild
# and Kconfig instead of this file.
#
#   make [modules]     build ib_srpt.ko against KDIR
#   make install       install into /lib/modules/<release>/updates + depmod
#                      (SIGN_KEY=key SIGN_CERT=cert.der: signed, for Secure Boot)
#   make uninstall     remove what make install installed + depmod
#   make deb           the Debian packages ib-srpt-dkms (DKMS) and ib-srpt-ha
#                      (the Pacemaker resource agent) in build/deb/
#   make clean
#   make check         build checks, KUnit and the QEMU guest tests
#   make check-debug   only the debug kernel, KUnit in it and its lanes
#   make check-fabric  all two-guest tests (IB/CM, multipath, failover;
#                      make check runs their smoke test)
#   make check-ha      the build and the HA tests (the Pacemaker resource
#                      agent tools/ha/SRPTarget in a guest, the three-guest
#                      DRBD pair in a Pacemaker cluster, its failover, two
#                      SRP gateways for a Ceph RBD image; not in make
#                      check)
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
comma := ,

.PHONY: all modules clean install uninstall deb check check-debug check-fabric check-ha demo man bench

all: modules

modules:
	$(need_kdir)
	$(MAKE) $(KBUILD_ARGS) modules

clean:
	$(if $(KDIR),$(MAKE) $(KBUILD_ARGS) clean)
	rm -rf build

# Modules go to updates/, which depmod ranks above the distribution's own
# ib_srpt. Kbuild never signs it (the distribution's key is not available):
# with SIGN_KEY and SIGN_CERT (a private key, or a "pkcs11:" URI, and its
# X.509 certificate) the kernel's sign-file signs ib_srpt.ko before
# modules_install copies and compresses it, with the kernel's
# CONFIG_MODULE_SIG_HASH. The signed copy is installed; ib_srpt.ko in the
# tree is put back unsigned afterwards, so the next make install signs an
# unsigned module again. Documentation/ib_srpt.rst, "Secure Boot", has the
# whole recipe (key, MOK enrolment).
SIGN_FILE ?= $(KDIR)/scripts/sign-file
SIGN_HASH ?= $(or $(shell sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"/\1/p' \
	$(KDIR)/.config 2>/dev/null),sha256)
SIGN_MARKER := ~Module signature appended~
signing = $(if $(SIGN_KEY)$(SIGN_CERT),y)
sign_fail = { echo "make install: $(1)" >&2; exit 1; }
MODULES_INSTALL = $(MAKE) $(KBUILD_ARGS) INSTALL_MOD_DIR=updates CONFIG_MODULE_SIG_ALL= modules_install

install: modules
	$(need_kdir)
ifeq ($(signing),y)
	@[ -n "$(SIGN_KEY)" ] && [ -n "$(SIGN_CERT)" ] || \
		$(call sign_fail,signing needs both SIGN_KEY (the private key) and SIGN_CERT (its certificate))
	@case "$(SIGN_KEY)" in pkcs11:*) ;; *) [ -r "$(SIGN_KEY)" ] || \
		$(call sign_fail,SIGN_KEY=$(SIGN_KEY): no such readable file (Documentation/ib_srpt.rst$(comma) 'Secure Boot'$(comma) makes one));; esac
	@[ -r "$(SIGN_CERT)" ] || \
		$(call sign_fail,SIGN_CERT=$(SIGN_CERT): no such readable file)
	@[ -x "$(SIGN_FILE)" ] || \
		$(call sign_fail,$(SIGN_FILE) does not exist: install the kernel headers (linux-headers-<release>) or set SIGN_FILE)
	@[ -z "$(INSTALL_MOD_STRIP)" ] || \
		$(call sign_fail,INSTALL_MOD_STRIP would strip the signature off again: leave it unset with SIGN_KEY)
	@if tail -c 28 ib_srpt.ko | grep -q '$(SIGN_MARKER)'; then \
		$(call sign_fail,ib_srpt.ko is already signed (an interrupted make install?): run make clean first); fi
	mkdir -p build
	cp -p ib_srpt.ko build/ib_srpt.ko.unsigned
	$(SIGN_FILE) $(SIGN_HASH) "$(SIGN_KEY)" "$(SIGN_CERT)" ib_srpt.ko || \
		{ mv -f build/ib_srpt.ko.unsigned ib_srpt.ko; exit 1; }
	$(MODULES_INSTALL) || { mv -f build/ib_srpt.ko.unsigned ib_srpt.ko; exit 1; }
	mv -f build/ib_srpt.ko.unsigned ib_srpt.ko
	@for f in $(INSTALLED_KO); do [ -e "$$f" ] || continue; \
		signer=$$(modinfo -F signer "$$f"); \
		[ -n "$$signer" ] || $(call sign_fail,$$f carries no signature); \
		echo "$$f: signed by $$signer ($(SIGN_HASH))"; done
else
	$(MODULES_INSTALL)
endif
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

# The Debian packages ib-srpt-dkms and ib-srpt-ha, built with
# dpkg-buildpackage from a copy of the files they need in
# build/deb/ib-srpt-<version>/ (the .debs land in build/deb/). Needs
# debhelper and dh-dkms; no kernel tree.
SRPT_VERSION := $(shell sed -n 's/^\#define SRPT_VERSION[[:space:]]*"\(.*\)"/\1/p' ib_srpt.h)
DEB_SRC := build/deb/ib-srpt-$(SRPT_VERSION)
DEB_FILES := debian dkms.conf Kbuild Kconfig Makefile ib_srpt.c ib_srpt.h \
	ib_srpt_trace.h ib_srpt_test.c README.md Documentation
# dm-query's sources (not a build of it), an example of the package.
DEB_DM_QUERY := tools/dm-query/dm-query.c tools/dm-query/Makefile
# The resource agent of ib-srpt-ha.
DEB_HA := tools/ha/SRPTarget

deb:
	rm -rf build/deb
	mkdir -p $(DEB_SRC)
	cp -a $(DEB_FILES) $(DEB_SRC)/
	mkdir -p $(DEB_SRC)/tools/dm-query
	cp $(DEB_DM_QUERY) $(DEB_SRC)/tools/dm-query/
	mkdir -p $(DEB_SRC)/tools/ha
	cp $(DEB_HA) $(DEB_SRC)/tools/ha/
	cd $(DEB_SRC) && dpkg-buildpackage -b -us -uc
	ls -l build/deb/*.deb

check:
	tools/testing/check.sh

check-debug:
	CHECK_BUDGET=$${CHECK_BUDGET:-180} CHECK_DEBUG=full \
		STAGES="build debug-kernel kunit debug debug-siw debug-fault debug-fuzz" tools/testing/check.sh

check-fabric:
	STAGES="build fabric" tools/testing/check.sh

# The guest stage with only the HA tests, which a whole make check leaves
# out (they are marked "# named-only"), and the fabric stage with the HA
# pair's three-guest tests (HA_FABRIC_TESTS).
check-ha:
	EXTRA_PACKAGES="resource-agents libxml2-utils drbd-utils pacemaker pacemaker-cli-utils corosync ceph-mon ceph-mgr ceph-osd ceph-common" \
		STAGES="build guest fabric ceph-gw" TESTS="$${HA_TESTS:-25-ocf-agent}" \
		FABRIC_TESTS="$${HA_FABRIC_TESTS:-10-ha-drbd}" tools/testing/check.sh

demo:
	tools/testing/demo.sh

bench:
	tools/bench/run.sh

man:
	$(need_kdir)
	tools/make-man.sh $(KERNELDOC) ib_srpt.c $(MANDIR) $(MAN_FUNCTIONS)
