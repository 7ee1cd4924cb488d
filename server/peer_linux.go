package server

import (
	"encoding/binary"
	"net"
	"strconv"
	"syscall"
	"time"
)

// peerOf names the local user who opened c, a TCP connection on loopback:
// every peer there has the address 127.0.0.1, so the address says nothing
// of who connects, but the kernel knows the owner of the connecting
// socket. It is asked with sock_diag for the one socket whose local end
// is c's remote end (what `ss -e` reads), which costs a few system calls.
func peerOf(c net.Conn) (peer string, ok bool) {
	local, lok := c.LocalAddr().(*net.TCPAddr)
	remote, rok := c.RemoteAddr().(*net.TCPAddr)
	if !lok || !rok || local.IP.To4() == nil || remote.IP.To4() == nil {
		return "", false
	}
	uid, ok := socketOwner(remote, local)
	if !ok {
		return "", false
	}
	return "uid " + strconv.FormatUint(uint64(uid), 10), true
}

// Netlink sock_diag, from linux/sock_diag.h and linux/inet_diag.h.
const (
	netlinkSockDiag   = 4  // NETLINK_SOCK_DIAG
	sockDiagByFamily  = 20 // SOCK_DIAG_BY_FAMILY
	inetDiagReqLen    = 56 // struct inet_diag_req_v2
	inetDiagMsgUIDOff = 64 // inet_diag_msg.idiag_uid
)

// socketOwner is the uid owning the IPv4 TCP socket whose local end is
// src and whose remote end is dst.
func socketOwner(src, dst *net.TCPAddr) (uint32, bool) {
	fd, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, netlinkSockDiag)
	if err != nil {
		return 0, false
	}
	defer syscall.Close(fd)
	tv := syscall.NsecToTimeval(int64(time.Second))
	syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv)
	if err := syscall.Sendto(fd, diagRequest(src, dst), 0, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return 0, false
	}
	buf := make([]byte, 512) // one inet_diag_msg, or an error
	n, _, err := syscall.Recvfrom(fd, buf, 0)
	if err != nil {
		return 0, false
	}
	msgs, err := syscall.ParseNetlinkMessage(buf[:n])
	if err != nil || len(msgs) == 0 || msgs[0].Header.Type != sockDiagByFamily || len(msgs[0].Data) < inetDiagMsgUIDOff+4 {
		return 0, false // NLMSG_ERROR: no such socket
	}
	return binary.NativeEndian.Uint32(msgs[0].Data[inetDiagMsgUIDOff:]), true
}

// diagRequest asks for the one TCP socket whose ends are src and dst.
func diagRequest(src, dst *net.TCPAddr) []byte {
	b := make([]byte, syscall.NLMSG_HDRLEN+inetDiagReqLen)
	binary.NativeEndian.PutUint32(b[0:], uint32(len(b)))
	binary.NativeEndian.PutUint16(b[4:], sockDiagByFamily)
	binary.NativeEndian.PutUint16(b[6:], syscall.NLM_F_REQUEST)
	req := b[syscall.NLMSG_HDRLEN:]
	req[0], req[1] = syscall.AF_INET, syscall.IPPROTO_TCP
	binary.NativeEndian.PutUint32(req[4:], 0xffffffff) // every state
	id := req[8:]
	binary.BigEndian.PutUint16(id[0:], uint16(src.Port))
	binary.BigEndian.PutUint16(id[2:], uint16(dst.Port))
	copy(id[4:], src.IP.To4())
	copy(id[20:], dst.IP.To4())
	binary.NativeEndian.PutUint32(id[40:], 0xffffffff) // INET_DIAG_NOCOOKIE
	binary.NativeEndian.PutUint32(id[44:], 0xffffffff)
	return b
}
