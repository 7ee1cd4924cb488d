package server

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/go-chi/chi/v5"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"golang.org/x/sync/singleflight"

	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/server/budget"
	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/server/login"
)

// DefaultPort is where the Console and HTTP MCP endpoint listen unless
// --port (or WORKRAIL_PORT) says otherwise.
const DefaultPort = 7421

// Config is everything a daemon serves, handed in by cmd.
type Config struct {
	Home home.Dir
	Port int // 0 picks a free port
	// AnyPort: when Port is taken, listen on a free port instead (a daemon
	// a shim started; daemon.json records the port).
	AnyPort bool
	Version string
	// Token is the bearer HTTP MCP clients send to /mcp; it opens the
	// Console too. The Console's login cookies owe nothing to it.
	Token string
	// Tools runs the MCP tools.
	Tools Tools
	// Library serves MCP prompts and resources (nil: neither is declared).
	Library Library
	// Features gates the tools served.
	Features protocol.Features
	// Console mounts the Console's pages.
	Console func(chi.Router)
	// Static holds the Console's assets, served under /static/.
	Static fs.FS
	// AppliedConfigHash identifies the configuration the daemon started
	// with, for daemon.json, given the port it listens on: the port in
	// use is the applied one (--port 0 and the free-port fallback choose).
	// nil records none.
	AppliedConfigHash func(port int) string
	// API answers the command line's requests (/api).
	API API
	// Log gets a line per tool call and the daemon's own events.
	Log *slog.Logger
	Now func() time.Time
	// Limits bound the listeners' connections (a field left zero: its
	// DefaultLimits value).
	Limits Limits
	// ImportBudget bounds the memory imports take together, shared with
	// the Console's previews (nil: unbounded).
	ImportBudget *budget.Budget
}

// Daemon is a running WorkRail daemon.
type Daemon struct {
	cfg       Config
	url       string
	tcp, unix *http.Server
	errs      chan error
	doctors   singleflight.Group
	owner     *owner // who may open the Console
	logins    *login.Logins
	routes    chi.Routes
	act       activity
	control   chan Action
	started   time.Time
	infoMu    sync.Mutex
	info      home.Info // what daemon.json says
	notes     *notifier // the notification streams (GET /mcp)
	lim       Limits
	// tcpStreams and socketStreams hold a slot per open event stream.
	tcpStreams, socketStreams chan struct{}
	peers                     *peerCount // each local user's TCP connections
}

// watchInterval is how often the prompts are listed again while a
// notification stream is open.
const watchInterval = 2 * time.Second

// Start takes the home's Console logins, binds the listeners, writes
// daemon.json and serves.
func Start(cfg Config) (d *Daemon, err error) {
	logins, err := login.Open(cfg.Home, cfg.Now, func(format string, a ...any) { cfg.Log.Warn(fmt.Sprintf(format, a...)) })
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			logins.Close()
		}
	}()
	lim := cfg.Limits.orDefaults()
	d = &Daemon{cfg: cfg, errs: make(chan error, 2), control: make(chan Action, 1), started: cfg.Now(), notes: newNotifier(), logins: logins,
		lim: lim, tcpStreams: make(chan struct{}, lim.TCPStreams), socketStreams: make(chan struct{}, lim.SocketStreams),
		peers: newPeerCount(lim.TCPPeerConns)}
	tcpLn, err := listenTCP(cfg.Port, cfg.AnyPort)
	if err != nil {
		return nil, err
	}
	if p := tcpLn.Addr().(*net.TCPAddr).Port; cfg.Port != 0 && p != cfg.Port {
		cfg.Log.Warn("the port is in use by another program; listening on another", "port", cfg.Port, "listening", p)
	}
	unixLn, err := listenUnix(cfg.Home.Socket())
	if err != nil {
		tcpLn.Close()
		return nil, err
	}
	d.url = "http://" + tcpLn.Addr().String()
	mcpHTTP := d.mcpHandler()
	port := tcpLn.Addr().(*net.TCPAddr).Port
	d.owner = newOwner(cfg.Token, port, cfg.Now, logins, func(format string, a ...any) { cfg.Log.Warn(fmt.Sprintf(format, a...)) })
	tcpRouter := d.router(port, mcpHTTP)
	d.routes = tcpRouter
	d.tcp = &http.Server{Handler: tcpRouter, ReadHeaderTimeout: lim.HeaderTimeout, IdleTimeout: lim.TCPIdle,
		MaxHeaderBytes: maxHeaderBytes, ConnContext: withConn}
	d.unix = &http.Server{Handler: d.socketRouter(mcpHTTP), ReadHeaderTimeout: lim.HeaderTimeout, ConnState: d.act.connState,
		ConnContext: withConn}
	tcpLn, unixLn = limitListen(tcpLn, lim.TCPConns, d.peers), limitListen(unixLn, lim.SocketConns, nil)
	// daemon.json names this daemon before anyone is served: a client that
	// got an answer can rely on it. Connections made meanwhile wait in the
	// listeners' backlog.
	d.info = home.Info{PID: os.Getpid(), URL: d.url, Socket: cfg.Home.Socket(),
		Version: cfg.Version, StartedAt: d.started.UTC().Format(time.RFC3339)}
	if cfg.AppliedConfigHash != nil {
		d.info.AppliedConfigHash = cfg.AppliedConfigHash(port)
	}
	err = cfg.Home.WriteInfo(d.info)
	if err != nil {
		tcpLn.Close()
		unixLn.Close()
		d.notes.close() // stops the prompts watcher
		return nil, err
	}
	go func() { d.errs <- serve(d.tcp, tcpLn) }()
	go func() { d.errs <- serve(d.unix, unixLn) }()
	return d, nil
}

// mcpHandler is the streamable HTTP MCP endpoint, its results linking to
// the Console at d.url, with the library's methods and plain tool calls
// (answers) answered ahead of it.
func (d *Daemon) mcpHandler() http.Handler {
	cfg := d.cfg
	calls := newToolCalls(cfg.Tools, cfg.Features, cfg.Log, d.url)
	s := mcpServer(calls, cfg.Version, cfg.Library != nil)
	// A 2026-07-28 client hears of changes on its subscriptions/listen
	// stream, which the library serves.
	d.notes.broadcast = func(method string) { s.SendNotificationToAllClients(method, nil) }
	var h http.Handler = mcpserver.NewStreamableHTTPServer(s, mcpserver.WithStateLess(true), mcpserver.WithEndpointPath("/mcp"))
	h = &answers{calls: calls, next: h}
	if cfg.Library != nil {
		w := newWatcher(cfg.Library, d.notes, watchInterval)
		go w.run()
		h = &libraryHandler{lib: cfg.Library, watch: w, notes: d.notes, next: h, version: cfg.Version}
	}
	return h
}

func serve(s *http.Server, ln net.Listener) error {
	if err := s.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// listenTCP binds the Console's port on loopback. A port another program
// holds is the one failure the user settles by choosing another; with
// anyPort the daemon takes a free one itself.
func listenTCP(port int, anyPort bool) (net.Listener, error) {
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if errors.Is(err, syscall.EADDRINUSE) && anyPort {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return nil, fmt.Errorf("port %d is in use by another program; run `workrail daemon --port N` (0 picks a free one), set WORKRAIL_PORT, or set \"port\" in config.json (`workrail config set port N`)", port)
	case err != nil:
		return nil, fmt.Errorf("listen on 127.0.0.1:%d: %w", port, err)
	}
	return ln, nil
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

// Routes is the TCP surface's routing tree, for tests that must reach
// every route.
func (d *Daemon) Routes() chi.Routes { return d.routes }

// URL is the Console's base URL.
func (d *Daemon) URL() string { return d.url }

// Errs reports a listener that stopped unexpectedly.
func (d *Daemon) Errs() <-chan error { return d.errs }

// Shutdown stops serving, removes daemon.json and the socket, and saves
// and lets go of the Console's logins. The caller closes the store after
// it.
func (d *Daemon) Shutdown(ctx context.Context) error {
	d.notes.close() // notification streams never end by themselves
	tcpErr, unixErr := d.tcp.Shutdown(ctx), d.unix.Shutdown(ctx)
	var err error
	if ctx.Err() != nil {
		// Requests still open at the deadline are cut: a stop or restart
		// must not hang on one slow client.
		d.cfg.Log.Warn("shutdown: cutting the connections still open at the deadline", "tcp", errText(tcpErr), "socket", errText(unixErr))
		err = errors.Join(d.tcp.Close(), d.unix.Close())
	} else {
		err = errors.Join(tcpErr, unixErr)
	}
	err = errors.Join(err, d.cfg.Home.RemoveInfo(os.Getpid()))
	os.Remove(d.cfg.Home.Socket())
	return errors.Join(err, d.logins.Close())
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
