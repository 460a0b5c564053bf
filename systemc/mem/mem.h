// The memory side of the timing model: Interconnect (crossbar) and
// Partition (L2 slice + DRAM channel), TLM-2.0 modules.
//
// Protocol: approximately-timed (AT) base protocol, nb_transport_fw/bw with
// BEGIN_REQ / END_REQ / BEGIN_RESP / END_RESP (mem/request.h). Why AT and not
// loosely-timed: the effects under study are contention effects (queueing in
// the crossbar, MSHR merging, DRAM row hits and FR-FCFS reordering, back
// pressure into the SMs), which need each request's timing to depend on the
// others in flight, and every component here runs in its own clock domain.
// LT with a quantum would let requests overtake each other inside a quantum.
// END_REQ is withheld while an input queue is full, which is how back
// pressure reaches the SM; every request gets a response (writes and
// atomics an acknowledgement), so an SM can count its outstanding stores.
//
// Timed queues instead of tlm_utils::peq_with_get: each module keeps its
// arrivals in per-port FIFOs stamped with the cycle they become visible (the
// first clock edge after arrival + annotated delay) and wakes its SC_METHOD
// only for the next cycle that has work. That is the payload event queue of
// the AT style without its per-transaction allocation, and idle modules are
// never woken.
//
// Address mapping: address_map.h (partition interleave) and dram.h
// (bank/row inside a partition). The L2 set index uses the
// partition-local line number.
//
// Netlist:  SM initiator sockets -> Interconnect::sm_side (multi, index = SM)
//           Interconnect::mem_side (multi, index = partition) -> Partition::tgt
// Any of these can be replaced by another TLM target following request.h.
//
// Data: L2 lines hold data; func::GlobalMemory is the DRAM contents.
// Between kernels the engine calls Partition::flush / invalidate (untimed).
#pragma once
#include "mem/address_map.h"
#include "mem/interconnect.h"
#include "mem/partition.h"
#include "mem/request.h"
