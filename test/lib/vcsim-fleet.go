// A vCenter for the fleet tests: govmomi's simulator (its VPX model) holding the
// datacenter, clusters, hosts, vMotion vmks, standard and distributed switches and
// MTUs that a JSON spec describes, served over HTTPS on one address until SIGTERM.
//
//	vcsim-fleet -spec SPEC.json -listen ADDR:PORT -cert CERT.pem -key KEY.pem
//
// It prints "vcsim-fleet: listening on https://ADDR:PORT/sdk" once it serves.
// Debian's govmomi (0.24) has no vcsim command and its model has one vmk per host
// (vmk0, management) and no vMotion vmk: the spec's vmks, switches, uplinks and
// states are written into each HostSystem's config here, in the shape a real host
// reports them (HostNetworkInfo's vnic, vswitch, portgroup, proxySwitch, pnic and
// HostVirtualNicManagerInfo's netConfig, whose selectedVnic names the vmks that carry
// a service as "<service>.<vnic key>"). Only what the spec names is changed.
package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"syscall"

	"github.com/vmware/govmomi"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/types"
)

// hostSpec is one host as vCenter would know it.
type hostSpec struct {
	Name        string   `json:"name"`
	Management  string   `json:"management"`  // vmk0's IPv4 address
	Vmk         string   `json:"vmk"`         // the vMotion vmk's device, e.g. vmk1
	IP          string   `json:"ip"`          // its IPv4 address
	IP6         string   `json:"ip6"`         // its IPv6 address ("" for none)
	VmkMTU      int32    `json:"vmk_mtu"`     // its MTU
	Netstack    string   `json:"netstack"`    // vmotion or defaultTcpipStack
	Service     bool     `json:"service"`     // the vMotion service is on for it
	Switch      string   `json:"switch"`      // "vss" (a standard vSwitch) or "dvs"
	VSwitch     string   `json:"vswitch"`     // the standard vSwitch's name
	VSwitchMTU  int32    `json:"vswitch_mtu"` // its MTU
	Uplinks     []string `json:"uplinks"`     // vmnicN of the switch
	Maintenance bool     `json:"maintenance"` // in maintenance mode
	Connection  string   `json:"connection"`  // connected (default), disconnected, notResponding
}

type spec struct {
	User          string     `json:"user"`
	Password      string     `json:"password"`
	Datacenter    string     `json:"datacenter"`
	Cluster       string     `json:"cluster"`        // every host is in it
	EmptyClusters []string   `json:"empty_clusters"` // clusters with no host
	DVS           string     `json:"dvs"`            // the distributed switch's name
	DVSMTU        int32      `json:"dvs_mtu"`        // its MTU (maxMtu)
	DVPortgroup   string     `json:"dvportgroup"`    // its vMotion portgroup
	Hosts         []hostSpec `json:"hosts"`
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "vcsim-fleet: "+format+"\n", args...)
	os.Exit(2)
}

func readSpec(path string) *spec {
	data, err := os.ReadFile(path)
	if err != nil {
		fail("spec %s: %v", path, err)
	}
	s := new(spec)
	if err := json.Unmarshal(data, s); err != nil {
		fail("spec %s: %v", path, err)
	}
	if len(s.Hosts) == 0 || s.Datacenter == "" || s.Cluster == "" || s.User == "" {
		fail("spec %s: needs user, datacenter, cluster and at least one host", path)
	}
	return s
}

// pnicKey is the key a host gives its physical NIC vmnicN.
func pnicKey(dev string) string { return "key-vim.host.PhysicalNic-" + dev }

// vnic builds the vMotion vmk of one host (on a standard portgroup or a DVS port).
func vnic(h hostSpec, dvs *simulator.DistributedVirtualSwitch, pgKey string) types.HostVirtualNic {
	ip := &types.HostIpConfig{IpAddress: h.IP, SubnetMask: "255.255.255.0"}
	if h.IP6 != "" {
		ip.IpV6Config = &types.HostIpConfigIpV6AddressConfiguration{
			IpV6Address: []types.HostIpConfigIpV6Address{{
				IpAddress: h.IP6, PrefixLength: 64, Origin: "manual", DadState: "preferred",
			}},
		}
	}
	n := types.HostVirtualNic{
		Device: h.Vmk,
		Key:    "key-vim.host.VirtualNic-" + h.Vmk,
		Spec: types.HostVirtualNicSpec{
			Ip:                  ip,
			Mtu:                 h.VmkMTU,
			NetStackInstanceKey: h.Netstack,
		},
	}
	if h.Switch == "dvs" {
		n.Spec.DistributedVirtualPort = &types.DistributedVirtualSwitchPortConnection{
			SwitchUuid: dvs.Uuid, PortgroupKey: pgKey, PortKey: "10",
		}
	} else {
		n.Portgroup = "vMotion"
		n.Spec.Portgroup = "vMotion"
	}
	return n
}

// standardSwitch adds vSwitchN with its uplinks and the portgroup "vMotion".
func standardSwitch(net *types.HostNetworkInfo, h hostSpec) {
	swKey := "key-vim.host.VirtualSwitch-" + h.VSwitch
	var pnics []string
	for _, u := range h.Uplinks {
		pnics = append(pnics, pnicKey(u))
	}
	net.Vswitch = append(net.Vswitch, types.HostVirtualSwitch{
		Name: h.VSwitch, Key: swKey, NumPorts: 128, Mtu: h.VSwitchMTU,
		Portgroup: []string{"key-vim.host.PortGroup-vMotion"}, Pnic: pnics,
		Spec: types.HostVirtualSwitchSpec{
			NumPorts: 128, Mtu: h.VSwitchMTU,
			Bridge: &types.HostVirtualSwitchBondBridge{NicDevice: h.Uplinks},
		},
	})
	net.Portgroup = append(net.Portgroup, types.HostPortGroup{
		Key: "key-vim.host.PortGroup-vMotion", Vswitch: swKey,
		Spec: types.HostPortGroupSpec{Name: "vMotion", VswitchName: h.VSwitch},
	})
}

// proxySwitch is the host's side of the DVS: its MTU and the uplinks it holds.
func proxySwitch(net *types.HostNetworkInfo, h hostSpec, dvs *simulator.DistributedVirtualSwitch, mtu int32) {
	var pnics []string
	var backing []types.DistributedVirtualSwitchHostMemberPnicSpec
	for i, u := range h.Uplinks {
		pnics = append(pnics, pnicKey(u))
		backing = append(backing, types.DistributedVirtualSwitchHostMemberPnicSpec{
			PnicDevice: u, UplinkPortKey: fmt.Sprint(i),
		})
	}
	net.ProxySwitch = append(net.ProxySwitch, types.HostProxySwitch{
		DvsUuid: dvs.Uuid, DvsName: dvs.Name, Key: "DvsPortset-0", NumPorts: 512,
		Mtu: mtu, Pnic: pnics,
		Spec: types.HostProxySwitchSpec{
			Backing: &types.DistributedVirtualSwitchHostMemberPnicBacking{PnicSpec: backing},
		},
	})
}

// services puts the vmk among the candidates of the vmotion service, and selects it
// there when the spec says the service is on; management stays on vmk0.
func services(info *types.HostVirtualNicManagerInfo, n types.HostVirtualNic, on bool) {
	for i := range info.NetConfig {
		nc := &info.NetConfig[i]
		if nc.NicType != "vmotion" {
			continue
		}
		c := n
		c.Key = "vmotion." + n.Key
		nc.CandidateVnic = append(nc.CandidateVnic, c)
		nc.SelectedVnic = nil
		if on {
			nc.SelectedVnic = []string{c.Key}
		}
	}
}

// pnics makes sure every uplink the spec names exists on the host (the model has
// vmnic0 and vmnic1).
func pnics(net *types.HostNetworkInfo, uplinks []string) {
	have := map[string]bool{}
	for _, p := range net.Pnic {
		have[p.Device] = true
	}
	for _, u := range uplinks {
		if !have[u] {
			net.Pnic = append(net.Pnic, types.PhysicalNic{
				Key: pnicKey(u), Device: u, Driver: "nvmxnet3",
				LinkSpeed: &types.PhysicalNicLinkInfo{SpeedMb: 10000, Duplex: true},
			})
			have[u] = true
		}
	}
}

func configureHost(hs *simulator.HostSystem, h hostSpec, s *spec, dvs *simulator.DistributedVirtualSwitch, pgKey string) {
	hs.Name = h.Name
	hs.Summary.Config.Name = h.Name
	net := hs.Config.Network
	net.Vnic[0].Spec.Ip.IpAddress = h.Management
	net.Vnic[0].Spec.Ip.SubnetMask = "255.255.255.0"
	net.Vnic[0].Spec.Ip.Dhcp = false
	pnics(net, h.Uplinks)
	n := vnic(h, dvs, pgKey)
	net.Vnic = append(net.Vnic, n)
	if h.Switch == "dvs" {
		proxySwitch(net, h, dvs, s.DVSMTU)
	} else {
		standardSwitch(net, h)
	}
	services(hs.Config.VirtualNicManagerInfo, n, h.Service)
	hs.Runtime.InMaintenanceMode = h.Maintenance
	switch h.Connection {
	case "", "connected":
		hs.Runtime.ConnectionState = types.HostSystemConnectionStateConnected
	case "disconnected":
		hs.Runtime.ConnectionState = types.HostSystemConnectionStateDisconnected
	case "notResponding":
		hs.Runtime.ConnectionState = types.HostSystemConnectionStateNotResponding
	default:
		fail("host %s: connection %q (connected, disconnected, notResponding)", h.Name, h.Connection)
	}
}

// shape renames the model's datacenter, cluster, DVS and its first portgroup, sets
// the DVS MTU and writes every host's configuration.
func shape(s *spec) {
	dc := simulator.Map.Any("Datacenter").(*simulator.Datacenter)
	dc.Name = s.Datacenter
	cl := simulator.Map.Any("ClusterComputeResource").(*simulator.ClusterComputeResource)
	cl.Name = s.Cluster
	dvs := simulator.Map.Any("DistributedVirtualSwitch").(*simulator.DistributedVirtualSwitch)
	dvs.Name = s.DVS
	dvs.Summary.Name = s.DVS
	cfg := dvs.Config.(*types.VMwareDVSConfigInfo)
	cfg.Name = s.DVS
	cfg.MaxMtu = s.DVSMTU
	var pgKey string
	for _, ref := range dvs.Portgroup {
		pg := simulator.Map.Get(ref).(*simulator.DistributedVirtualPortgroup)
		if pg.Config.Uplink != nil && *pg.Config.Uplink {
			continue
		}
		pg.Name = s.DVPortgroup
		pg.Config.Name = s.DVPortgroup
		pgKey = pg.Key
		break
	}
	if len(cl.Host) != len(s.Hosts) {
		fail("the model has %d hosts, the spec %d", len(cl.Host), len(s.Hosts))
	}
	for i, ref := range cl.Host {
		configureHost(simulator.Map.Get(ref).(*simulator.HostSystem), s.Hosts[i], s, dvs, pgKey)
	}
}

// emptyClusters makes the spec's clusters that hold no host, through the API.
func emptyClusters(ctx context.Context, u *url.URL, names []string) {
	if len(names) == 0 {
		return
	}
	c, err := govmomi.NewClient(ctx, u, true)
	if err != nil {
		fail("own API: %v", err)
	}
	defer c.Logout(ctx)
	dc := simulator.Map.Any("Datacenter").(*simulator.Datacenter)
	hostFolder := object.NewFolder(c.Client, dc.HostFolder)
	for _, n := range names {
		if _, err := hostFolder.CreateCluster(ctx, n, types.ClusterConfigSpecEx{}); err != nil {
			fail("cluster %s: %v", n, err)
		}
	}
}

func main() {
	specPath := flag.String("spec", "", "the JSON spec of the inventory")
	listen := flag.String("listen", "127.0.0.1:0", "ADDR:PORT to serve on")
	certFile := flag.String("cert", "", "the server certificate (PEM)")
	keyFile := flag.String("key", "", "its private key (PEM)")
	flag.Parse()
	if *specPath == "" || *certFile == "" || *keyFile == "" {
		fail("usage: vcsim-fleet -spec SPEC.json -listen ADDR:PORT -cert CERT.pem -key KEY.pem")
	}
	s := readSpec(*specPath)
	cert, err := tls.LoadX509KeyPair(*certFile, *keyFile)
	if err != nil {
		fail("certificate %s: %v", *certFile, err)
	}

	model := simulator.VPX()
	model.Datacenter, model.Cluster, model.ClusterHost, model.Host = 1, 1, len(s.Hosts), 0
	model.Machine, model.Portgroup = 0, 1
	if err := model.Create(); err != nil {
		fail("model: %v", err)
	}
	defer model.Remove()
	shape(s)

	model.Service.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	model.Service.Listen = &url.URL{Host: *listen, User: url.UserPassword(s.User, s.Password)}
	srv := model.Service.NewServer()
	defer srv.Close()
	emptyClusters(context.Background(), srv.URL, s.EmptyClusters)

	fmt.Printf("vcsim-fleet: listening on https://%s/sdk\n", srv.URL.Host)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	<-stop
}
