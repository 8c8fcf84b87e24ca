//go:build linux

// tcpinfo_linux.go: reads TCP_INFO with getsockopt on Linux (golang.org/x/sys/unix.GetsockoptTCPInfo).
// See tcpinfo.go for the meaning and direction of each field.
package main

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// tcpInfoSupported tells the hello reply whether tcpInfo can work here.
const tcpInfoSupported = true

// ReadTCPInfo returns a TCP_INFO snapshot of c.
func ReadTCPInfo(c *net.TCPConn) (TCPInfoMsg, error) {
	var info *unix.TCPInfo
	if err := onFD(c, func(fd int) error {
		var err error
		if info, err = unix.GetsockoptTCPInfo(fd, unix.IPPROTO_TCP, unix.TCP_INFO); err != nil {
			return fmt.Errorf("getsockopt(TCP_INFO): %w", err)
		}
		return nil
	}); err != nil {
		return TCPInfoMsg{}, err
	}
	return TCPInfoMsg{
		State:          int(info.State),
		CAState:        int(info.Ca_state),
		RTTUs:          info.Rtt,
		RTTVarUs:       info.Rttvar,
		MinRTTUs:       info.Min_rtt,
		RcvRTTUs:       info.Rcv_rtt,
		RTOUs:          info.Rto,
		RcvSpace:       info.Rcv_space,
		RcvSsthresh:    info.Rcv_ssthresh,
		RcvMSS:         info.Rcv_mss,
		SndMSS:         info.Snd_mss,
		PMTU:           info.Pmtu,
		BytesReceived:  info.Bytes_received,
		BytesAcked:     info.Bytes_acked,
		BytesSent:      info.Bytes_sent,
		SegsIn:         info.Segs_in,
		SegsOut:        info.Segs_out,
		DataSegsIn:     info.Data_segs_in,
		TotalRetrans:   info.Total_retrans,
		Lost:           info.Lost,
		Reordering:     info.Reordering,
		RcvOOOPack:     info.Rcv_ooopack,
		SndCwnd:        info.Snd_cwnd,
		SndSsthresh:    info.Snd_ssthresh,
		DeliveryRate:   info.Delivery_rate,
		PacingRate:     info.Pacing_rate,
		LastDataRecvMs: info.Last_data_recv,
		BusyTimeUs:     info.Busy_time,
	}, nil
}
