//! A FIFO channel from a compute process to itself (a value carried along its loop nest, such as
//! GEMM's running sum) as a ring: an array in the process with its read and write positions
//! (`dpn_hls::Ring`), not an `hls::stream`.
//!
//! Why: the process is one pipelined loop, which reads its operands in an early stage and writes
//! its result some stages later. A stream read that finds nothing stalls the whole pipeline,
//! including the stage that would write the value it waits for, so a value read fewer passes
//! after its write than the pipeline is deep would deadlock the hardware (and not the software
//! run). An array is a dependence HLS schedules for: the pragma tells it the shortest distance,
//! in passes, between a value's write and its read, and HLS chooses an II at which the write
//! lands in time (II=1 when the distance covers the pipeline's latency).
//!
//! The distance is found by walking the process's instances in order ([`Gen::ring_distance`]);
//! passes that run no instance only lengthen it, so counting instances is safe.

use crate::gen::Gen;
use dpnc_dpn::ir::ChannelKind;
use std::collections::VecDeque;

impl Gen<'_> {
    /// Whether channel `c` is a ring: a FIFO from a compute process to itself.
    pub(crate) fn is_ring(&self, c: usize) -> bool {
        let ch = &self.dpn.channels[c];
        ch.producer == ch.consumer && ch.kind != ChannelKind::Scratchpad
    }

    /// The rings compute process `pi` keeps.
    pub(crate) fn rings(&self, pi: usize) -> Vec<usize> {
        (0..self.dpn.channels.len()).filter(|&c| self.dpn.channels[c].consumer == pi && self.is_ring(c)).collect()
    }

    /// The fewest instances of its process between a value's write to ring `c` and its read
    /// (None: no value is read).
    pub(crate) fn ring_distance(&self, c: usize) -> Option<u64> {
        let ch = &self.dpn.channels[c];
        let pr = &self.dpn.processes[ch.consumer];
        let (l, r) = (pr.loops.as_ref()?, ch.port?);
        // The read takes a value where its mux picks this channel (the first clause that holds)
        // and, on a FIFO+register channel, only at a value's first read.
        let clauses = pr.mux.get(r)?;
        let write = pr.demux.iter().find(|cl| cl.channel == c)?.pred.as_ref()?;
        let first = if ch.kind == ChannelKind::FifoReg { ch.first_read.as_ref() } else { None };
        let (mut written, mut shortest, mut n) = (VecDeque::new(), None::<u64>, 0u64);
        l.for_each(&mut |it| {
            let picked = clauses.iter().find(|cl| cl.pred.as_ref().is_some_and(|p| p.eval(it)));
            if picked.is_some_and(|cl| cl.channel == c) && first.is_none_or(|p| p.eval(it)) {
                if let Some(t) = written.pop_front() {
                    shortest = Some(shortest.map_or(n - t, |s: u64| s.min(n - t)));
                }
            }
            if write.eval(it) {
                written.push_back(n);
            }
            n += 1;
        });
        shortest
    }
}
