package transport

import (
	"errors"
	"fmt"
	"net"
	"os"
)

// Explain rewords a network failure as what happened to the server:
// `cannot reach 127.0.0.1:8080: connection refused` rather than the
// request that ran into it (`Delete "http://…": dial tcp …: connect: …`),
// which names whatever request go-sdk happened to be sending. Other
// errors are returned as they are. The original stays in the chain for
// errors.Is and errors.As.
func Explain(err error) error {
	if err == nil {
		return nil
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		why := dns.Err
		if dns.IsNotFound {
			why = "no such host"
		}
		return &explained{fmt.Sprintf("cannot resolve %s: %s", dns.Name, why), err}
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		addr := "the server"
		if op.Addr != nil {
			addr = op.Addr.String()
		}
		cause := op.Err
		var sys *os.SyscallError
		if errors.As(cause, &sys) {
			cause = sys.Err
		}
		if op.Timeout() {
			return &explained{fmt.Sprintf("cannot reach %s: no answer to connect", addr), err}
		}
		return &explained{fmt.Sprintf("cannot reach %s: %v", addr, cause), err}
	}
	return err
}

type explained struct {
	msg string
	err error
}

func (e *explained) Error() string { return e.msg }
func (e *explained) Unwrap() error { return e.err }
