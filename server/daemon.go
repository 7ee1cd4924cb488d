package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/workrail/workrail/console"
	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/store"
	"github.com/workrail/workrail/workflows"
)

// DefaultPort is where the Console and HTTP MCP endpoint listen unless
// --port (or WORKRAIL_PORT) says otherwise.
const DefaultPort = 7421

// Config is what a daemon needs to start.
type Config struct {
	Home    home.Dir
	Port    int // 0 picks a free port
	Version string
	Log     io.Writer
	Now     func() time.Time
}

// Daemon is a running WorkRail daemon: the only owner of the store.
type Daemon struct {
	cfg   Config
	log   *log.Logger
	store *store.Store
	url   string
	token string

	tcp, unix *http.Server
	errs      chan error
}

// ErrAlreadyRunning means another daemon holds this home's database.
var ErrAlreadyRunning = errors.New("another workrail daemon is already running on this home folder")

// Start opens the store, binds the listeners and writes daemon.json. It
// fails fast (about a second) when another daemon owns the home folder.
func Start(cfg Config) (*Daemon, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	d := &Daemon{cfg: cfg, log: log.New(cfg.Log, "workrail: ", log.LstdFlags|log.Lmicroseconds), errs: make(chan error, 2)}
	s, err := store.Open(cfg.Home.DB(), store.Options{})
	if errors.Is(err, store.ErrLocked) {
		return nil, d.alreadyRunning()
	}
	if err != nil {
		return nil, err
	}
	d.store = s
	if err := d.listen(); err != nil {
		s.Close()
		return nil, err
	}
	return d, nil
}

func (d *Daemon) alreadyRunning() error {
	info, err := d.cfg.Home.ReadInfo()
	if err != nil {
		return fmt.Errorf("%w (%s is locked)", ErrAlreadyRunning, d.cfg.Home.DB())
	}
	return fmt.Errorf("%w: pid %d, Console %s, started %s", ErrAlreadyRunning, info.PID, info.URL, info.StartedAt)
}

func (d *Daemon) listen() error {
	keys, err := LoadKeyRing(string(d.cfg.Home))
	if err != nil {
		return err
	}
	cfg, err := loadConfig(d.cfg.Home)
	if err != nil {
		return err
	}
	reg, err := NewRegistry(workflows.FS, cfg.workflowDirs(d.cfg.Home))
	if err != nil {
		return err
	}
	if d.token, err = loadAuthToken(d.cfg.Home); err != nil {
		return err
	}
	x := NewExecutor(d.store, keys, reg, cfg.DefaultPreferences, d.cfg.Now, d.log.Printf)
	mcpHTTP := mcpserver.NewStreamableHTTPServer(NewMCPServer(x, d.cfg.Version), mcpserver.WithStateLess(true), mcpserver.WithEndpointPath("/mcp"))

	tcpLn, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", d.cfg.Port))
	if err != nil {
		return fmt.Errorf("listen on 127.0.0.1:%d: %w (pick another with --port)", d.cfg.Port, err)
	}
	unixLn, err := listenUnix(d.cfg.Home.Socket())
	if err != nil {
		tcpLn.Close()
		return err
	}
	d.url = "http://" + tcpLn.Addr().String()
	con := console.New(d.store, d.cfg.Version, d.log.Printf)
	d.tcp = &http.Server{Handler: d.router(tcpLn.Addr().(*net.TCPAddr).Port, mcpHTTP, con), ReadHeaderTimeout: 10 * time.Second}
	d.unix = &http.Server{Handler: mcpHTTP, ReadHeaderTimeout: 10 * time.Second}
	// daemon.json names this daemon before anyone is served: a client that
	// got an answer can rely on it. Connections made meanwhile wait in the
	// listeners' backlog.
	err = d.cfg.Home.WriteInfo(home.Info{PID: os.Getpid(), URL: d.url, Socket: d.cfg.Home.Socket(),
		Version: d.cfg.Version, StartedAt: d.cfg.Now().UTC().Format(time.RFC3339)})
	if err != nil {
		tcpLn.Close()
		unixLn.Close()
		return err
	}
	go func() { d.errs <- serve(d.tcp, tcpLn) }()
	go func() { d.errs <- serve(d.unix, unixLn) }()
	return nil
}

func serve(s *http.Server, ln net.Listener) error {
	if err := s.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// listenUnix binds the shim socket so only this user can connect. A socket
// left by a killed daemon is removed first: holding the database lock
// proves no other daemon uses it.
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

func loadAuthToken(h home.Dir) (string, error) {
	path := h.Path("auth.token")
	if b, err := os.ReadFile(path); err == nil {
		if t := strings.TrimSpace(string(b)); t != "" {
			return t, nil
		}
	}
	buf := make([]byte, 32)
	if _, err := rand.Read(buf); err != nil {
		return "", err
	}
	t := hex.EncodeToString(buf)
	return t, home.WriteFileAtomic(path, []byte(t+"\n"), 0o600)
}

// URL is the Console's base URL.
func (d *Daemon) URL() string { return d.url }

// AuthToken is the bearer token HTTP MCP clients send to /mcp.
func (d *Daemon) AuthToken() string { return d.token }

// Errs reports a listener that stopped unexpectedly.
func (d *Daemon) Errs() <-chan error { return d.errs }

// Shutdown stops serving, removes daemon.json and closes the store.
func (d *Daemon) Shutdown(ctx context.Context) error {
	err := errors.Join(d.tcp.Shutdown(ctx), d.unix.Shutdown(ctx))
	err = errors.Join(err, d.cfg.Home.RemoveInfo(os.Getpid()))
	os.Remove(d.cfg.Home.Socket())
	return errors.Join(err, d.store.Close())
}
