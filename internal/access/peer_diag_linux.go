package access

import (
	"encoding/binary"
	"errors"
	"net"

	"golang.org/x/sys/unix"
)

// sock_diag (linux/inet_diag.h): a SOCK_DIAG_BY_FAMILY request without
// NLM_F_DUMP names one socket by family, protocol and both ends, and the
// kernel answers with its inet_diag_msg, whose uid is its owner.
const (
	diagReqLen  = 16 + 56 // nlmsghdr + inet_diag_req_v2
	diagMsgUID  = 16 + 64 // offset of idiag_uid in the answer
	diagMsgLen  = 16 + 72 // nlmsghdr + inet_diag_msg
	noCookie    = 0xffffffff
	allTCPState = 0xffffffff
)

// diagOwner asks the kernel for the uid of the TCP socket from local to
// remote. err reports that sock_diag could not answer at all (then the
// caller falls back to /proc); found false that there is no such socket.
func diagOwner(local, remote *net.TCPAddr) (uid int, found bool, err error) {
	fams := []int{unix.AF_INET6}
	if local.IP.To4() != nil && remote.IP.To4() != nil {
		fams = []int{unix.AF_INET, unix.AF_INET6} // a v6 socket may hold mapped v4
	}
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return 0, false, err
	}
	defer unix.Close(fd)
	tv := unix.Timeval{Sec: 1}
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	for _, fam := range fams {
		uid, found, err = diagAsk(fd, fam, local, remote)
		if err != nil || found {
			return uid, found, err
		}
	}
	return 0, false, nil
}

func diagAsk(fd, fam int, local, remote *net.TCPAddr) (int, bool, error) {
	req := make([]byte, diagReqLen)
	ne := binary.NativeEndian
	ne.PutUint32(req[0:], diagReqLen)
	ne.PutUint16(req[4:], unix.SOCK_DIAG_BY_FAMILY)
	ne.PutUint16(req[6:], unix.NLM_F_REQUEST)
	req[16], req[17] = byte(fam), unix.IPPROTO_TCP
	ne.PutUint32(req[20:], allTCPState)
	id := req[24:]
	binary.BigEndian.PutUint16(id[0:], uint16(local.Port))
	binary.BigEndian.PutUint16(id[2:], uint16(remote.Port))
	putAddr(id[4:20], fam, local.IP)
	putAddr(id[20:36], fam, remote.IP)
	ne.PutUint32(id[40:], noCookie)
	ne.PutUint32(id[44:], noCookie)
	if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return 0, false, err
	}
	buf := make([]byte, 8192)
	n, _, err := unix.Recvfrom(fd, buf, 0)
	if err != nil {
		return 0, false, err
	}
	buf = buf[:n]
	if len(buf) < 16 {
		return 0, false, errors.New("sock_diag: short answer")
	}
	switch ne.Uint16(buf[4:]) {
	case unix.SOCK_DIAG_BY_FAMILY:
		if len(buf) < diagMsgLen {
			return 0, false, errors.New("sock_diag: short answer")
		}
		return int(ne.Uint32(buf[diagMsgUID:])), true, nil
	case unix.NLMSG_ERROR:
		if len(buf) >= 20 {
			if errno := -int32(ne.Uint32(buf[16:])); errno == int32(unix.ENOENT) {
				return 0, false, nil // no such socket
			}
		}
	}
	return 0, false, errors.New("sock_diag: unexpected answer")
}

// putAddr writes ip as the family's address (network order; an IPv4
// address in an IPv6 socket is IPv4-mapped).
func putAddr(dst []byte, fam int, ip net.IP) {
	if fam == unix.AF_INET {
		copy(dst, ip.To4())
		return
	}
	copy(dst, ip.To16())
}
