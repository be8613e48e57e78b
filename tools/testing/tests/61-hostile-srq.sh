#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The hostile initiator suite of 60-hostile again, with the target port's
# attrib/use_srq = 1: every channel receives its IUs from the device's
# shared receive queue, where one channel's request buffers are reused by
# the next channel's IUs. The cases whose outcome the receive mode plays
# no part in are left out (SRQ_LEAVE_OUT). See 60-hostile.sh for the
# environment.

HOSTILE_MODE=srq exec bash "$(dirname "$0")/60-hostile.sh"
