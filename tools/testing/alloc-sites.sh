#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# alloc-sites.sh - list ib_srpt's allocation call sites, so that a fault
# injection test can say how many of them it failed ("sites failed X of Y").
#
# Usage: tools/testing/alloc-sites.sh [-c] [SOURCE]
#   prints one site per line, "FUNCTION LINE CALL" (the function of
#   SOURCE, default ib_srpt.c next to tools/, the line of the call and the
#   function called), in source order; -c prints only how many there are.
#
# What counts as a site: a call in ib_srpt.c (not the KUnit file) whose
# failure a failslab or fail_page_alloc injection can cause, with a stack
# whose innermost ib_srpt frame is that call:
#   - memory allocations: kmalloc, kzalloc, kcalloc, kmalloc_array,
#     kvmalloc, kvzalloc, kvcalloc, kmemdup, kstrdup, kasprintf,
#     kmem_cache_alloc, kmem_cache_zalloc, alloc_page(s), __get_free_page(s),
#     get_zeroed_page, vmalloc, vzalloc, sgl_alloc, mempool_alloc;
#   - calls that allocate on ib_srpt's behalf and report the failure:
#     kmem_cache_create, alloc_workqueue; the RDMA core's ib_alloc_pd,
#     ib_cq_pool_get, ib_alloc_cq, ib_create_qp, rdma_create_qp,
#     ib_create_srq, ib_create_ah_from_wc, ib_register_mad_agent,
#     ib_create_send_mad, ib_register_client, rdma_rw_ctx_init,
#     rdma_rw_ctx_signature_init; the connection managers' ib_create_cm_id,
#     ib_cm_listen, rdma_create_id, rdma_bind_addr, rdma_listen, and their
#     messages, which each allocate a MAD (ib_send_cm_rep, ib_send_cm_rej,
#     ib_send_cm_dreq, ib_send_cm_drep, rdma_accept, rdma_reject,
#     rdma_disconnect); LIO's target_register_template,
#     target_setup_session, target_alloc_sgl,
#     target_submit_prep (a CDB longer than its inline buffer),
#     target_submit_tmr (core_tmr_alloc_req).
# Not counted: posting work requests (ib_post_*: no allocation in ib_srpt's
# stack on the soft RDMA drivers), target_submit() and target_init_cmd()
# (LIO's and the backend's allocations below them fall back to mempools or
# end as a SCSI status, and are LIO's sites), DMA mapping, and calls inside
# ib_srpt's own wrappers (srpt_alloc_ioctx_ring(), srpt_cache_get(), ...),
# whose allocation the wrapper's line stands for.
#
# A failure's stack is mapped to a site by the innermost frame in
# ib_srpt.c of its first ib_srpt return address (addr2line -i: inlined
# helpers such as srpt_alloc_ioctx() count as their own lines).

set -euo pipefail

count=0
if [[ ${1:-} == -c ]]; then
	count=1
	shift
fi
src=${1:-$(cd "$(dirname "$0")/../.." && pwd)/ib_srpt.c}
[[ -r $src ]] || { echo "alloc-sites.sh: cannot read $src" >&2; exit 2; }

calls='kmalloc|kzalloc|kcalloc|kmalloc_array|kvmalloc|kvzalloc|kvcalloc|kmemdup|kstrdup|kasprintf'
calls+='|kmem_cache_alloc|kmem_cache_zalloc|alloc_pages?|__get_free_pages?|get_zeroed_page'
calls+='|vmalloc|vzalloc|sgl_alloc|mempool_alloc|kmem_cache_create|alloc_workqueue'
calls+='|ib_alloc_pd|ib_cq_pool_get|ib_alloc_cq|ib_create_qp|rdma_create_qp|ib_create_srq'
calls+='|ib_create_ah_from_wc|ib_register_mad_agent|ib_create_send_mad|ib_register_client'
calls+='|rdma_rw_ctx_init|rdma_rw_ctx_signature_init|ib_create_cm_id|ib_cm_listen'
calls+='|rdma_create_id|rdma_bind_addr|rdma_listen|ib_send_cm_rep|ib_send_cm_rej'
calls+='|ib_send_cm_dreq|ib_send_cm_drep|rdma_accept|rdma_reject|rdma_disconnect'
calls+='|target_register_template|target_setup_session|target_alloc_sgl|target_submit_prep|target_submit_tmr'

# A function definition starts in column 0 with its return type and has
# its name before the first "("; block comments and preprocessor lines
# are skipped, and so are string literals.
sites=$(awk -v calls="$calls" '
	/^[ \t]*\/\*/ && !/\*\// { incomment = 1; next }
	incomment { if (/\*\//) incomment = 0; next }
	/^#/ { next }
	/^[a-z_].*\(/ && !/;[ \t]*$/ && !/^(if|for|while|return)\b/ {
		s = $0; sub(/\(.*/, "", s); n = split(s, w, /[ \t*]+/); fn = w[n]; next }
	/^}/ { fn = ""; next }
	fn != "" {
		line = $0
		gsub(/"([^"\\]|\\.)*"/, "\"\"", line)
		sub(/\/\/.*/, "", line)
		gsub(/\/\*.*\*\//, "", line)
		while (match(line, "(^|[^A-Za-z0-9_>.])(" calls ")[ \t]*\\(")) {
			c = substr(line, RSTART, RLENGTH)
			sub(/^[^A-Za-z_]/, "", c); sub(/[ \t]*\($/, "", c)
			print fn, NR, c
			line = substr(line, RSTART + RLENGTH)
		}
	}' "$src")

if ((count)); then
	grep -c . <<<"$sites" || true
else
	echo "$sites"
fi
