/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tracepoints of the SRP target (tracefs events/ib_srpt/).
 *
 * Logins, channel state changes, commands and their responses, task
 * management requests and their responses. Every event names the channel
 * by its initiator address and channel number in the nexus; commands are
 * identified by the initiator's tag.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ib_srpt

#if !defined(IB_SRPT_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define IB_SRPT_TRACE_H

#include <linux/tracepoint.h>

/* So that perf and trace-cmd can decode the symbolic fields. */
TRACE_DEFINE_ENUM(CH_CONNECTING);
TRACE_DEFINE_ENUM(CH_LIVE);
TRACE_DEFINE_ENUM(CH_DISCONNECTING);
TRACE_DEFINE_ENUM(CH_DRAINING);
TRACE_DEFINE_ENUM(CH_DISCONNECTED);
TRACE_DEFINE_ENUM(DMA_BIDIRECTIONAL);
TRACE_DEFINE_ENUM(DMA_TO_DEVICE);
TRACE_DEFINE_ENUM(DMA_FROM_DEVICE);
TRACE_DEFINE_ENUM(DMA_NONE);

TRACE_EVENT(srpt_login,
	    TP_PROTO(const char *dev, u32 port, const char *src,
		     const u8 *i_port_id, u32 reason),
	    TP_ARGS(dev, port, src, i_port_id, reason),
	    TP_STRUCT__entry(__string(dev, dev)
			     __field(u32, port)
			     __string(src, src)
			     __array(u8, i_port_id, 16)
			     __field(u32, reason)),
	    TP_fast_assign(__assign_str(dev);
			   __entry->port = port;
			   __assign_str(src);
			   memcpy(__entry->i_port_id, i_port_id, 16);
			   __entry->reason = reason;),
	    TP_printk("%s port %u from %s initiator 0x%16phN %s reason=%#x",
		      __get_str(dev), __entry->port, __get_str(src),
		      __entry->i_port_id,
		      __entry->reason ? "rejected" : "accepted", __entry->reason)
);

TRACE_EVENT(srpt_ch_state,
	    TP_PROTO(const char *name, u32 cid, int old, int new),
	    TP_ARGS(name, cid, old, new),
	    TP_STRUCT__entry(__string(name, name)
			     __field(u32, cid)
			     __field(int, old)
			     __field(int, new)),
	    TP_fast_assign(__assign_str(name);
			   __entry->cid = cid;
			   __entry->old = old;
			   __entry->new = new;),
	    TP_printk("%s cid %u %s -> %s", __get_str(name), __entry->cid,
		      __print_symbolic(__entry->old,
				       { CH_CONNECTING, "connecting" },
				       { CH_LIVE, "live" },
				       { CH_DISCONNECTING, "disconnecting" },
				       { CH_DRAINING, "draining" },
				       { CH_DISCONNECTED, "disconnected" }),
		      __print_symbolic(__entry->new,
				       { CH_CONNECTING, "connecting" },
				       { CH_LIVE, "live" },
				       { CH_DISCONNECTING, "disconnecting" },
				       { CH_DRAINING, "draining" },
				       { CH_DISCONNECTED, "disconnected" }))
);

TRACE_EVENT(srpt_cmd,
	    TP_PROTO(const char *name, u32 cid, u64 tag, u64 lun, u8 opcode,
		     u64 len, int dir),
	    TP_ARGS(name, cid, tag, lun, opcode, len, dir),
	    TP_STRUCT__entry(__string(name, name)
			     __field(u32, cid)
			     __field(u64, tag)
			     __field(u64, lun)
			     __field(u8, opcode)
			     __field(u64, len)
			     __field(int, dir)),
	    TP_fast_assign(__assign_str(name);
			   __entry->cid = cid;
			   __entry->tag = tag;
			   __entry->lun = lun;
			   __entry->opcode = opcode;
			   __entry->len = len;
			   __entry->dir = dir;),
	    TP_printk("%s cid %u tag %#llx lun %llu opcode %#04x len %llu %s",
		      __get_str(name), __entry->cid, __entry->tag, __entry->lun,
		      __entry->opcode, __entry->len,
		      __print_symbolic(__entry->dir,
				       { DMA_TO_DEVICE, "data-out" },
				       { DMA_FROM_DEVICE, "data-in" },
				       { DMA_NONE, "no-data" },
				       { DMA_BIDIRECTIONAL, "bidi" }))
);

TRACE_EVENT(srpt_rsp,
	    TP_PROTO(const char *name, u32 cid, u64 tag, u8 status, u32 resid,
		     u32 sense_len),
	    TP_ARGS(name, cid, tag, status, resid, sense_len),
	    TP_STRUCT__entry(__string(name, name)
			     __field(u32, cid)
			     __field(u64, tag)
			     __field(u8, status)
			     __field(u32, resid)
			     __field(u32, sense_len)),
	    TP_fast_assign(__assign_str(name);
			   __entry->cid = cid;
			   __entry->tag = tag;
			   __entry->status = status;
			   __entry->resid = resid;
			   __entry->sense_len = sense_len;),
	    TP_printk("%s cid %u tag %#llx status %#04x resid %u sense %u",
		      __get_str(name), __entry->cid, __entry->tag,
		      __entry->status, __entry->resid, __entry->sense_len)
);

TRACE_EVENT(srpt_tmf,
	    TP_PROTO(const char *name, u32 cid, u64 tag, u64 lun, u8 func,
		     u64 task_tag),
	    TP_ARGS(name, cid, tag, lun, func, task_tag),
	    TP_STRUCT__entry(__string(name, name)
			     __field(u32, cid)
			     __field(u64, tag)
			     __field(u64, lun)
			     __field(u8, func)
			     __field(u64, task_tag)),
	    TP_fast_assign(__assign_str(name);
			   __entry->cid = cid;
			   __entry->tag = tag;
			   __entry->lun = lun;
			   __entry->func = func;
			   __entry->task_tag = task_tag;),
	    TP_printk("%s cid %u tag %#llx lun %llu function %#04x task %#llx",
		      __get_str(name), __entry->cid, __entry->tag, __entry->lun,
		      __entry->func, __entry->task_tag)
);

TRACE_EVENT(srpt_tmf_rsp,
	    TP_PROTO(const char *name, u32 cid, u64 tag, u8 code),
	    TP_ARGS(name, cid, tag, code),
	    TP_STRUCT__entry(__string(name, name)
			     __field(u32, cid)
			     __field(u64, tag)
			     __field(u8, code)),
	    TP_fast_assign(__assign_str(name);
			   __entry->cid = cid;
			   __entry->tag = tag;
			   __entry->code = code;),
	    TP_printk("%s cid %u tag %#llx response %#04x", __get_str(name),
		      __entry->cid, __entry->tag, __entry->code)
);

TRACE_EVENT(srpt_aborted,
	    TP_PROTO(const char *name, u32 cid, u64 tag),
	    TP_ARGS(name, cid, tag),
	    TP_STRUCT__entry(__string(name, name)
			     __field(u32, cid)
			     __field(u64, tag)),
	    TP_fast_assign(__assign_str(name);
			   __entry->cid = cid;
			   __entry->tag = tag;),
	    TP_printk("%s cid %u tag %#llx", __get_str(name), __entry->cid,
		      __entry->tag)
);

#endif /* IB_SRPT_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE ib_srpt_trace
#include <trace/define_trace.h>
