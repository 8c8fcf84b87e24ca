// framing.go: the native-messaging wire framing between the browser and the socket host.
//
// Chrome (and every Chromium-based browser) talks to a native-messaging host over the host's stdin and
// stdout. Each message is a 4-byte length in native byte order (little-endian on every platform Chrome
// supports) followed by that many bytes of UTF-8 JSON. This file only moves frames; it knows nothing about
// what the JSON says (see messages.go).
package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// frameHeaderBytes is the size of the length prefix in front of every message.
const frameHeaderBytes = 4

// ErrFrameTooLarge is wrapped by ReadFrame when a frame declares more bytes than the caller accepts.
// The oversized payload has been consumed (discarded) from the stream, so the next frame can be read.
var ErrFrameTooLarge = errors.New("frame too large")

// ErrTruncatedFrame is wrapped by ReadFrame when the stream ends inside a frame (in its length prefix or its
// payload). The stream cannot be resynchronised after this.
var ErrTruncatedFrame = errors.New("truncated frame")

// ReadFrame reads one frame from r and returns its payload.
//
// It returns io.EOF (unwrapped) only when r ends cleanly before the first byte of a frame: the browser has
// closed the port. A frame whose declared length exceeds maxBytes is read and thrown away in bounded pieces
// (no allocation of the declared size) and an error wrapping ErrFrameTooLarge is returned; the caller may
// continue with the next frame. An end of stream inside a frame returns an error wrapping ErrTruncatedFrame.
func ReadFrame(r io.Reader, maxBytes int) ([]byte, error) {
	var header [frameHeaderBytes]byte
	n, err := io.ReadFull(r, header[:])
	if err != nil {
		if n == 0 && errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%w: stream ended after %d of %d length-prefix bytes", ErrTruncatedFrame, n, frameHeaderBytes)
		}
		return nil, fmt.Errorf("reading frame length prefix: %w", err)
	}
	length := uint64(binary.LittleEndian.Uint32(header[:]))
	if length > uint64(maxBytes) {
		discarded, err := io.CopyN(io.Discard, r, int64(length))
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("%w: oversized frame of %d bytes ended after %d bytes", ErrTruncatedFrame, length, discarded)
			}
			return nil, fmt.Errorf("discarding oversized frame of %d bytes: %w", length, err)
		}
		return nil, fmt.Errorf("%w: %d bytes declared, limit is %d (frame discarded)", ErrFrameTooLarge, length, maxBytes)
	}
	payload := make([]byte, length)
	got, err := io.ReadFull(r, payload)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%w: stream ended after %d of %d payload bytes", ErrTruncatedFrame, got, length)
		}
		return nil, fmt.Errorf("reading frame payload: %w", err)
	}
	return payload, nil
}

// AppendFrame appends the framed form of payload (length prefix + payload) to dst.
// It refuses payloads longer than maxBytes so an oversized message never reaches the browser, which would
// otherwise drop the whole port.
func AppendFrame(dst, payload []byte, maxBytes int) ([]byte, error) {
	if len(payload) > maxBytes {
		return dst, fmt.Errorf("%w: outgoing message of %d bytes exceeds the %d-byte limit", ErrFrameTooLarge, len(payload), maxBytes)
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(payload)))
	return append(dst, payload...), nil
}
