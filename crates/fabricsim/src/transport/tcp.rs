//! One end of a TCP connection with the behaviour that shapes bulk and
//! request/response throughput on HP-UX 10.x, a 4.3BSD-derived stack: the
//! MSS, slow start and congestion avoidance, the RFC 1323 window scale,
//! send and receive socket buffers, the sender's silly-window avoidance and
//! Nagle (off with TCP_NODELAY), the receiver's silly-window avoidance, and
//! delayed ACKs. As in HP-UX's `tcp_input`, every in-order data segment
//! only marks an ACK as owed: it leaves with data going the other way, with
//! a window update after a receive call (`window_update_due`), or at the
//! next tick of the delayed-ACK timer. There is no ACK for every second
//! segment; with full-sized segments the window update after reading two
//! of them plays that part.
//!
//! Sequence numbers are byte offsets from the start of the connection
//! (u64: no wrap). The fabric loses nothing (buffer-to-buffer credit on
//! every link, receiving interfaces always take frames), so there is no
//! retransmission; a segment out of order is counted and the audit fails.

/// What a segment carries besides its data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Segment {
    /// First data byte's sequence number.
    pub seq: u64,
    /// Data bytes (0: a pure ACK or window update).
    pub len: u32,
    /// Next byte expected by the segment's sender.
    pub ack: u64,
    /// Window advertised, in bytes (already a multiple of the scale unit).
    pub window: u64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TcpConfig {
    pub mss: u32,
    pub send_buffer: u32,
    pub receive_buffer: u32,
    /// TCP_NODELAY: Nagle off.
    pub nodelay: bool,
    /// RFC 1323 window scale shift this end applies to windows it advertises.
    pub window_shift: u8,
}

impl TcpConfig {
    /// The shift that lets a `buffer`-byte window fit the 16-bit field (RFC 1323, 2.2).
    pub fn shift_for(buffer: u32, window_scale: bool) -> u8 {
        if !window_scale {
            return 0;
        }
        let mut shift = 0;
        while (buffer >> shift) > 65535 && shift < 14 {
            shift += 1;
        }
        shift
    }
}

#[derive(Clone, Debug)]
pub struct TcpEndpoint {
    pub cfg: TcpConfig,
    /// Bytes the application has put into the send buffer since the start.
    pub written: u64,
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// Peer's window, in bytes from `snd_una`.
    pub snd_wnd: u64,
    pub cwnd: u64,
    pub ssthresh: u64,
    /// Largest window the peer has offered (sender silly-window avoidance).
    pub max_sndwnd: u64,
    /// Largest window the peer can offer at all (its scale allows).
    max_window: u64,
    pub rcv_nxt: u64,
    /// Received and not yet read by the application.
    pub rcv_unread: u64,
    /// Right edge of the window last advertised.
    pub rcv_adv: u64,
    /// An ACK is owed now (a window update, the delayed-ACK timer).
    pub ack_now: bool,
    /// An ACK is owed at the next delayed-ACK tick.
    pub delayed_ack: bool,
    /// Segments that arrived out of order (must stay 0: the fabric keeps order).
    pub out_of_order: u64,
}

impl TcpEndpoint {
    /// An established connection whose peer advertised `peer_window` bytes
    /// and scales its windows by `peer_shift`.
    pub fn new(cfg: TcpConfig, peer_window: u64, peer_shift: u8) -> Self {
        let max_window = 65535u64 << peer_shift;
        TcpEndpoint {
            cfg,
            written: 0,
            snd_una: 0,
            snd_nxt: 0,
            snd_wnd: peer_window,
            cwnd: cfg.mss as u64,
            ssthresh: max_window,
            max_sndwnd: peer_window,
            max_window,
            rcv_nxt: 0,
            rcv_unread: 0,
            rcv_adv: Self::scaled(cfg.receive_buffer as u64, cfg.window_shift),
            ack_now: false,
            delayed_ack: false,
            out_of_order: 0,
        }
    }

    /// The window the buffer allows, as the scaled 16-bit field can say it.
    fn scaled(window: u64, shift: u8) -> u64 {
        (window.min(65535u64 << shift) >> shift) << shift
    }

    /// The initial window this end offers (its SYN).
    pub fn initial_window(cfg: &TcpConfig) -> u64 {
        Self::scaled(cfg.receive_buffer as u64, cfg.window_shift)
    }

    /// Bytes in the send buffer: written and not yet acknowledged.
    pub fn send_buffered(&self) -> u64 {
        self.written - self.snd_una
    }

    /// Free space in the send buffer (none once a pass has overfilled it).
    pub fn send_space(&self) -> u64 {
        (self.cfg.send_buffer as u64).saturating_sub(self.send_buffered())
    }

    /// The application puts `bytes` into the send buffer. A pass of the
    /// send call copies whole clusters, so it may overfill the buffer by
    /// less than one cluster (HP-UX `sobuildsnd`).
    pub fn write(&mut self, bytes: u64) {
        self.written += bytes;
    }

    /// Whether everything written has been acknowledged.
    pub fn all_acked(&self) -> bool {
        self.snd_una == self.written
    }

    /// tcp_output's decision: the length of the next data segment to send
    /// now, or None. Sends a full segment; or, with TCP_NODELAY or nothing
    /// outstanding (Nagle), all the data buffered; or at least half the
    /// largest window the peer has offered (sender silly-window avoidance).
    pub fn next_data_segment(&self) -> Option<u32> {
        let off = self.snd_nxt - self.snd_una;
        let buffered = self.send_buffered();
        let window = self.snd_wnd.min(self.cwnd);
        let len = buffered.min(window).saturating_sub(off).min(self.cfg.mss as u64);
        if len == 0 {
            return None;
        }
        let idle = self.snd_nxt == self.snd_una;
        let send = len == self.cfg.mss as u64
            || ((idle || self.cfg.nodelay) && off + len >= buffered)
            || (self.max_sndwnd > 0 && len >= self.max_sndwnd / 2);
        send.then_some(len as u32)
    }

    /// Data is waiting but the window keeps it back and nothing is in
    /// flight to bring an ACK: the persist timer must force it out.
    pub fn needs_persist(&self) -> bool {
        self.snd_nxt == self.snd_una && self.send_buffered() > 0 && self.next_data_segment().is_none()
    }

    /// The persist timer fired: the length to force out (at least one byte).
    pub fn persist_segment(&self) -> u32 {
        let window = self.snd_wnd.min(self.cwnd).max(1);
        self.send_buffered().min(window).min(self.cfg.mss as u64) as u32
    }

    /// The window to advertise now: free receive buffer, zero below a
    /// quarter of the buffer and one MSS (receiver silly-window avoidance),
    /// never shrinking what was offered, as the scaled field can carry it.
    pub fn window_to_advertise(&self) -> u64 {
        let buffer = self.cfg.receive_buffer as u64;
        let mut win = buffer - self.rcv_unread;
        if win < buffer / 4 && win < self.cfg.mss as u64 {
            win = 0;
        }
        let offered = self.rcv_adv - self.rcv_nxt;
        let win = Self::scaled(win, self.cfg.window_shift);
        win.max(offered)
    }

    /// Fills the ACK fields of a segment about to leave and clears what it settles.
    pub fn stamp(&mut self, seq: u64, len: u32) -> Segment {
        let window = self.window_to_advertise();
        self.rcv_adv = self.rcv_nxt + window;
        self.ack_now = false;
        self.delayed_ack = false;
        Segment { seq, len, ack: self.rcv_nxt, window }
    }

    /// Takes the next data segment tcp_output decided on.
    pub fn send_data(&mut self, len: u32) -> Segment {
        let seq = self.snd_nxt;
        self.snd_nxt += len as u64;
        self.stamp(seq, len)
    }

    /// A segment arrives. Returns the bytes its ACK freed in the send buffer.
    pub fn receive(&mut self, seg: &Segment) -> u64 {
        let mut freed = 0;
        if seg.ack > self.snd_una {
            freed = seg.ack - self.snd_una;
            self.snd_una = seg.ack;
            let mss = self.cfg.mss as u64;
            // Slow start below ssthresh, then one MSS per window (congestion avoidance).
            let grow = if self.cwnd < self.ssthresh { mss } else { (mss * mss / self.cwnd).max(1) };
            self.cwnd = (self.cwnd + grow).min(self.max_window);
        }
        // An older ACK (reordered behind a newer one) says nothing about the window.
        if seg.ack == self.snd_una {
            self.snd_wnd = seg.window;
            self.max_sndwnd = self.max_sndwnd.max(seg.window);
        }
        if seg.len > 0 {
            if seg.seq != self.rcv_nxt {
                self.out_of_order += 1;
            }
            self.rcv_nxt = seg.seq + seg.len as u64;
            self.rcv_unread += seg.len as u64;
            self.delayed_ack = true;
        }
        freed
    }

    /// The application read `bytes`.
    pub fn read(&mut self, bytes: u64) {
        self.rcv_unread -= bytes;
    }

    /// After a receive call (HP-UX `tcp_window_update`): a window update is
    /// due once the window can open by two segments with the buffer read
    /// empty, or by a third of the buffer.
    pub fn window_update_due(&self) -> bool {
        let win = self.window_to_advertise();
        let opens = (self.rcv_nxt + win).saturating_sub(self.rcv_adv);
        opens > 0
            && ((self.rcv_unread == 0 && opens >= 2 * self.cfg.mss as u64)
                || 3 * opens >= self.cfg.receive_buffer as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(buffer: u32, mss: u32) -> (TcpEndpoint, TcpEndpoint) {
        let shift = TcpConfig::shift_for(buffer, true);
        let cfg = TcpConfig { mss, send_buffer: buffer, receive_buffer: buffer, nodelay: true, window_shift: shift };
        let w = TcpEndpoint::initial_window(&cfg);
        (TcpEndpoint::new(cfg, w, shift), TcpEndpoint::new(cfg, w, shift))
    }

    #[test]
    fn window_scale_fits_the_field_and_rounds_down() {
        assert_eq!(TcpConfig::shift_for(65535, true), 0);
        assert_eq!(TcpConfig::shift_for(65536, true), 1);
        assert_eq!(TcpConfig::shift_for(262143, true), 2);
        assert_eq!(TcpConfig::shift_for(262143, false), 0);
        let (a, _) = pair(262143, 1460);
        assert_eq!(a.window_to_advertise(), 262140);
    }

    #[test]
    fn slow_start_opens_one_segment_per_ack() {
        let (mut a, mut b) = pair(262143, 1000);
        a.write(100_000);
        assert_eq!(a.next_data_segment(), Some(1000));
        let s = a.send_data(1000);
        assert_eq!(a.next_data_segment(), None, "cwnd is one segment");
        b.receive(&s);
        b.read(1000);
        let ack = b.stamp(0, 0);
        a.receive(&ack);
        assert_eq!(a.cwnd, 2000);
    }

    #[test]
    fn data_is_acked_by_a_window_update_after_reading_two_segments_or_a_third_of_the_buffer() {
        let (mut a, mut b) = pair(65535, 10_000);
        a.cwnd = 60_000;
        a.write(20_000);
        let segs: Vec<_> = (0..2).map(|_| a.send_data(a.next_data_segment().unwrap())).collect();
        b.receive(&segs[0]);
        b.receive(&segs[1]);
        assert!(b.delayed_ack && !b.ack_now, "arrivals alone only owe a delayed ACK");
        b.read(10_000);
        assert!(!b.window_update_due(), "one segment read: 10000 < 2 MSS and < a third of 65535");
        b.read(10_000);
        assert!(b.window_update_due(), "two segments read, buffer empty");
        let (_, mut c) = pair(30_000, 10_000);
        c.receive(&Segment { seq: 0, len: 10_000, ack: 0, window: 30_000 });
        c.receive(&Segment { seq: 10_000, len: 5_000, ack: 0, window: 30_000 });
        c.read(10_000);
        assert!(c.window_update_due(), "a third of the buffer read, though data is left");
    }

    #[test]
    fn silly_window_avoidance_holds_small_segments_without_nodelay() {
        let (mut a, _) = pair(65535, 1000);
        a.cfg.nodelay = false;
        a.cwnd = 10_000;
        a.write(1500);
        assert_eq!(a.next_data_segment(), Some(1000));
        a.send_data(1000);
        // 500 bytes left, one segment outstanding: Nagle holds them.
        assert_eq!(a.next_data_segment(), None);
        a.cfg.nodelay = true;
        assert_eq!(a.next_data_segment(), Some(500));
    }

    #[test]
    fn receiver_offers_no_window_below_a_quarter_buffer_and_one_mss() {
        let (_, mut b) = pair(8192, 4000);
        let s = Segment { seq: 0, len: 6500, ack: 0, window: 8192 };
        b.receive(&s);
        b.stamp(0, 0);
        assert_eq!(b.window_to_advertise(), 1692.max(b.rcv_adv - b.rcv_nxt));
        b.rcv_adv = b.rcv_nxt;
        assert_eq!(b.window_to_advertise(), 0, "1692 < 2048 and < MSS");
        b.read(6500);
        assert!(b.window_update_due());
    }
}
