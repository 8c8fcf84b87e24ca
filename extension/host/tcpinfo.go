// tcpinfo.go: the TCP_INFO fields the host reports, in the units PROTOCOL.md documents.
//
// takes the RTT estimate from the kernel's TCP_INFO of the connection carrying a train.
// Mind the direction on the client: rttUs, rttVarUs, minRttUs, rcvRttUs, rcvSpace, bytesReceived, segsIn and
// dataSegsIn describe the download path (server→client data, client ACKs), while sndCwnd, sndSsthresh,
// deliveryRate, pacingRate and bytesAcked describe the client's own sending (the small requests) and say
// nothing about the server's congestion window. The OS-specific read is in tcpinfo_linux.go / tcpinfo_other.go.
package main

// TCPInfoMsg is a TCP_INFO snapshot. Fields the kernel does not report are 0.
type TCPInfoMsg struct {
	State          int    `json:"state"`          // kernel TCP state (1 = ESTABLISHED)
	CAState        int    `json:"caState"`        // congestion-avoidance state (0 open, 1 disorder, 2 CWR, 3 recovery, 4 loss)
	RTTUs          uint32 `json:"rttUs"`          // smoothed RTT, microseconds
	RTTVarUs       uint32 `json:"rttVarUs"`       // RTT mean deviation, microseconds
	MinRTTUs       uint32 `json:"minRttUs"`       // minimum RTT seen, microseconds
	RcvRTTUs       uint32 `json:"rcvRttUs"`       // receiver-side RTT estimate, microseconds (0 until measured)
	RTOUs          uint32 `json:"rtoUs"`          // retransmission timeout, microseconds
	RcvSpace       uint32 `json:"rcvSpace"`       // receive-buffer autotuning space, bytes
	RcvSsthresh    uint32 `json:"rcvSsthresh"`    // receive window clamp, bytes
	RcvMSS         uint32 `json:"rcvMss"`         // bytes
	SndMSS         uint32 `json:"sndMss"`         // bytes
	PMTU           uint32 `json:"pmtu"`           // bytes
	BytesReceived  uint64 `json:"bytesReceived"`  // payload bytes received on the socket (TLS records included)
	BytesAcked     uint64 `json:"bytesAcked"`     // our sent bytes acknowledged by the server
	BytesSent      uint64 `json:"bytesSent"`      // our sent bytes, retransmissions included
	SegsIn         uint32 `json:"segsIn"`         // segments received
	SegsOut        uint32 `json:"segsOut"`        // segments sent
	DataSegsIn     uint32 `json:"dataSegsIn"`     // segments received carrying data
	TotalRetrans   uint32 `json:"totalRetrans"`   // our retransmitted segments, whole connection
	Lost           uint32 `json:"lost"`           // our segments currently presumed lost
	Reordering     uint32 `json:"reordering"`     // reordering metric
	RcvOOOPack     uint32 `json:"rcvOooPack"`     // out-of-order packets received (a hint of loss on the download path)
	SndCwnd        uint32 `json:"sndCwnd"`        // OUR congestion window, segments (not the server's)
	SndSsthresh    uint32 `json:"sndSsthresh"`    // OUR slow-start threshold, segments (large value = infinite)
	DeliveryRate   uint64 `json:"deliveryRate"`   // OUR sending delivery rate, bytes/s (not the download rate)
	PacingRate     uint64 `json:"pacingRate"`     // OUR pacing rate, bytes/s
	LastDataRecvMs uint32 `json:"lastDataRecvMs"` // milliseconds since data was last received
	BusyTimeUs     uint64 `json:"busyTimeUs"`     // time OUR sender had unacked data, microseconds
}
