package server

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/go-chi/chi/v5"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"golang.org/x/sync/singleflight"

	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/store"
)

// DefaultPort is where the Console and HTTP MCP endpoint listen unless
// --port (or WORKRAIL_PORT) says otherwise.
const DefaultPort = 7421

// Config is everything a daemon serves, handed in by cmd.
type Config struct {
	Home    home.Dir
	Port    int // 0 picks a free port
	Version string
	// Token is the bearer HTTP MCP clients send to /mcp.
	Token string
	// Tools runs the MCP tools.
	Tools Tools
	// Console mounts the Console's pages.
	Console func(chi.Router)
	// Static holds the Console's assets, served under /static/.
	Static fs.FS
	// Doctor verifies every session for `workrail doctor`.
	Doctor func() ([]store.Report, error)
	Log    *log.Logger
	Now    func() time.Time
}

// Daemon is a running WorkRail daemon.
type Daemon struct {
	cfg       Config
	url       string
	tcp, unix *http.Server
	errs      chan error
	doctors   singleflight.Group
}

// Start binds the listeners, writes daemon.json and serves.
func Start(cfg Config) (*Daemon, error) {
	d := &Daemon{cfg: cfg, errs: make(chan error, 2)}
	mcpHTTP := mcpserver.NewStreamableHTTPServer(NewMCPServer(cfg.Tools, cfg.Version), mcpserver.WithStateLess(true), mcpserver.WithEndpointPath("/mcp"))
	tcpLn, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", cfg.Port))
	if err != nil {
		return nil, fmt.Errorf("listen on 127.0.0.1:%d: %w (pick another with --port)", cfg.Port, err)
	}
	unixLn, err := listenUnix(cfg.Home.Socket())
	if err != nil {
		tcpLn.Close()
		return nil, err
	}
	d.url = "http://" + tcpLn.Addr().String()
	d.tcp = &http.Server{Handler: d.router(tcpLn.Addr().(*net.TCPAddr).Port, mcpHTTP), ReadHeaderTimeout: 10 * time.Second}
	d.unix = &http.Server{Handler: d.socketRouter(mcpHTTP), ReadHeaderTimeout: 10 * time.Second}
	// daemon.json names this daemon before anyone is served: a client that
	// got an answer can rely on it. Connections made meanwhile wait in the
	// listeners' backlog.
	err = cfg.Home.WriteInfo(home.Info{PID: os.Getpid(), URL: d.url, Socket: cfg.Home.Socket(),
		Version: cfg.Version, StartedAt: cfg.Now().UTC().Format(time.RFC3339)})
	if err != nil {
		tcpLn.Close()
		unixLn.Close()
		return nil, err
	}
	go func() { d.errs <- serve(d.tcp, tcpLn) }()
	go func() { d.errs <- serve(d.unix, unixLn) }()
	return d, nil
}

func serve(s *http.Server, ln net.Listener) error {
	if err := s.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// listenUnix binds the shim socket so only this user can connect. A socket
// left by a killed daemon is removed first: the caller holds the database
// lock, which proves no other daemon uses it.
func listenUnix(path string) (net.Listener, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// URL is the Console's base URL.
func (d *Daemon) URL() string { return d.url }

// Errs reports a listener that stopped unexpectedly.
func (d *Daemon) Errs() <-chan error { return d.errs }

// Shutdown stops serving and removes daemon.json and the socket. The
// caller closes the store after it.
func (d *Daemon) Shutdown(ctx context.Context) error {
	err := errors.Join(d.tcp.Shutdown(ctx), d.unix.Shutdown(ctx))
	err = errors.Join(err, d.cfg.Home.RemoveInfo(os.Getpid()))
	os.Remove(d.cfg.Home.Socket())
	return err
}
