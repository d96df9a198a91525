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
// The distributed switch also has the VLAN/MTU health check that Debian's govmomi
// lacks (healthDVS below: its config, UpdateDVSHealthCheckConfig_Task and the
// per-uplink results in runtime.hostMemberRuntime[]).
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
	"strings"
	"syscall"
	"time"

	"github.com/vmware/govmomi"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/soap"
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
	// the DVS health check's results for this host's uplinks (comma lists of vmnics,
	// "" for none): a switch port that does not pass the DVS MTU, a NIC whose MTU is
	// not the DVS's (the port is then not probed), a port that does not trunk the VLAN
	HealthMtuBad    string `json:"health_mtu_bad"`
	HealthMismatch  string `json:"health_mismatch"`
	HealthUntrunked string `json:"health_untrunked"`
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
	// the DVS's VLAN/MTU health check: on at start, its interval (minutes, default 1), how
	// long after it is turned on its first results appear (ms), the VLAN it probes
	HealthCheck    bool  `json:"health_check"`
	HealthInterval int32 `json:"health_interval"`
	HealthDelayMs  int   `json:"health_delay_ms"`
	HealthVlan     int32 `json:"health_vlan"`
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
// uplinkPortKey is the DVS port key of a host's i-th uplink: a DVS numbers its ports
// once for the whole switch, so two hosts never share an uplink port key.
func uplinkPortKey(host, i int) string { return fmt.Sprint(100 + 10*host + i) }

func proxySwitch(net *types.HostNetworkInfo, h hostSpec, hostIndex int, dvs *simulator.DistributedVirtualSwitch, mtu int32) {
	var pnics []string
	var backing []types.DistributedVirtualSwitchHostMemberPnicSpec
	for i, u := range h.Uplinks {
		pnics = append(pnics, pnicKey(u))
		backing = append(backing, types.DistributedVirtualSwitchHostMemberPnicSpec{
			PnicDevice: u, UplinkPortKey: uplinkPortKey(hostIndex, i),
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

func configureHost(hs *simulator.HostSystem, h hostSpec, hostIndex int, s *spec, dvs *simulator.DistributedVirtualSwitch, pgKey string) {
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
		proxySwitch(net, h, hostIndex, dvs, s.DVSMTU)
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
		configureHost(simulator.Map.Get(ref).(*simulator.HostSystem), s.Hosts[i], i, s, dvs, pgKey)
	}
	withHealthCheck(s, dvs, cl.Host)
}

// healthDVS is the distributed switch with the VLAN/MTU and teaming health check
// (vSphere API: DistributedVirtualSwitch.UpdateDVSHealthCheckConfig_Task,
// DVSConfigInfo.healthCheckConfig, DVSRuntimeInfo.hostMemberRuntime[]). It embeds the
// simulator's switch by value: the property collector finds the mo type through the
// first field of a wrapper.
type healthDVS struct {
	simulator.DistributedVirtualSwitch
	members   []hostMember
	delay     time.Duration
	vlan      int32
	enabledAt time.Time // when the VLAN/MTU check was last turned on
}

// hostMember is one host of the switch and what its uplinks' ports would answer.
type hostMember struct {
	ref                         types.ManagedObjectReference
	ports                       []string // uplink port keys, in the order of uplinks
	uplinks                     []string
	mtuBad, mismatch, untrunked map[string]bool
}

func vmnicSet(list string) map[string]bool {
	set := map[string]bool{}
	for _, v := range strings.Split(list, ",") {
		if v = strings.TrimSpace(v); v != "" {
			set[v] = true
		}
	}
	return set
}

// vlanMtuConfig is the stored VMwareDVSVlanMtuHealthCheckConfig (VLAN and MTU are one
// switch: the API has no MTU-only config), or nil.
func (d *healthDVS) vlanMtuConfig() *types.VMwareDVSVlanMtuHealthCheckConfig {
	for _, c := range d.Config.GetDVSConfigInfo().HealthCheckConfig {
		if v, ok := c.(*types.VMwareDVSVlanMtuHealthCheckConfig); ok {
			return v
		}
	}
	return nil
}

// results are one host's VMwareDVSMtuHealthCheckResult and VMwareDVSVlanHealthCheckResult
// per uplink port (HostMemberUplinkHealthCheckResult.uplinkPortKey). With mtuMismatch
// (the NIC's MTU is not the DVS's) the port is not probed and both VLAN lists stay
// empty; else the VLAN is in vlanSupportSwitchMtu or vlanNotSupportSwitchMtu (a
// NumericRange, start == end for one VLAN). Source: vSphere Web Services API,
// data objects VMwareDVSMtuHealthCheckResult and VMwareDVSVlanHealthCheckResult.
func (d *healthDVS) results(m hostMember) []types.BaseHostMemberHealthCheckResult {
	var out []types.BaseHostMemberHealthCheckResult
	vlan := []types.NumericRange{{Start: d.vlan, End: d.vlan}}
	for i, dev := range m.uplinks {
		up := types.HostMemberUplinkHealthCheckResult{UplinkPortKey: m.ports[i]}
		r := &types.VMwareDVSMtuHealthCheckResult{HostMemberUplinkHealthCheckResult: up}
		switch {
		case m.mismatch[dev]:
			r.MtuMismatch = true
		case m.mtuBad[dev]:
			r.VlanNotSupportSwitchMtu = vlan
		default:
			r.VlanSupportSwitchMtu = vlan
		}
		v := &types.VMwareDVSVlanHealthCheckResult{HostMemberUplinkHealthCheckResult: up}
		if m.untrunked[dev] {
			v.UntrunkedVlan = vlan
		} else {
			v.TrunkedVlan = vlan
		}
		out = append(out, r, v)
	}
	return out
}

// refresh writes runtime.hostMemberRuntime: every member host, with its results only
// once the VLAN/MTU check has been on for the delay (a real check reports after its
// first round); none while it is off. The caller holds the switch's lock.
func (d *healthDVS) refresh() {
	c := d.vlanMtuConfig()
	on := c != nil && c.Enable != nil && *c.Enable && time.Since(d.enabledAt) >= d.delay
	rt := &types.DVSRuntimeInfo{}
	for _, m := range d.members {
		info := types.HostMemberRuntimeInfo{Host: m.ref, Status: "up"}
		if on {
			info.HealthCheckResult = d.results(m)
		}
		rt.HostMemberRuntime = append(rt.HostMemberRuntime, info)
	}
	d.Runtime = rt
}

// UpdateDVSHealthCheckConfigTask replaces the stored config of each kind given
// (VLAN/MTU, teaming), as vCenter does; any other kind is NotSupported. Each change
// is printed ("vcsim-fleet: health check vlanMtu enable=true interval=1"), so a
// test can see every enable and restore in order.
func (d *healthDVS) UpdateDVSHealthCheckConfigTask(req *types.UpdateDVSHealthCheckConfig_Task) soap.HasFault {
	task := simulator.CreateTask(d, "updateDVSHealthCheckConfig", func(*simulator.Task) (types.AnyType, types.BaseMethodFault) {
		cfg := d.Config.GetDVSConfigInfo()
		for _, given := range req.HealthCheckConfig {
			kind := ""
			switch given.(type) {
			case *types.VMwareDVSVlanMtuHealthCheckConfig:
				kind = "vlanMtu"
			case *types.VMwareDVSTeamingHealthCheckConfig:
				kind = "teaming"
			default:
				return nil, &types.NotSupported{}
			}
			base := given.GetDVSHealthCheckConfig()
			for i, c := range cfg.HealthCheckConfig {
				if fmt.Sprintf("%T", c) == fmt.Sprintf("%T", given) {
					cfg.HealthCheckConfig[i] = given
				}
			}
			on := base.Enable != nil && *base.Enable
			fmt.Printf("vcsim-fleet: health check %s enable=%v interval=%d\n", kind, on, base.Interval)
			if kind == "vlanMtu" && on {
				d.enabledAt = time.Now()
				time.AfterFunc(d.delay, func() { simulator.Map.WithLock(d, d.refresh) })
			}
		}
		d.refresh()
		return nil, nil
	})
	return &methods.UpdateDVSHealthCheckConfig_TaskBody{
		Res: &types.UpdateDVSHealthCheckConfig_TaskResponse{Returnval: task.Run()},
	}
}

// withHealthCheck puts the switch with its health check in the registry in place of
// the simulator's: both kinds in its config (off unless the spec turns VLAN/MTU on),
// the hosts on it as members.
func withHealthCheck(s *spec, dvs *simulator.DistributedVirtualSwitch, hosts []types.ManagedObjectReference) {
	interval := s.HealthInterval
	if interval == 0 {
		interval = 1
	}
	on, off := s.HealthCheck, false
	d := &healthDVS{DistributedVirtualSwitch: *dvs, delay: time.Duration(s.HealthDelayMs) * time.Millisecond,
		vlan: s.HealthVlan}
	cfg := d.Config.GetDVSConfigInfo()
	cfg.HealthCheckConfig = []types.BaseDVSHealthCheckConfig{
		&types.VMwareDVSVlanMtuHealthCheckConfig{VMwareDVSHealthCheckConfig: types.VMwareDVSHealthCheckConfig{
			DVSHealthCheckConfig: types.DVSHealthCheckConfig{Enable: &on, Interval: interval}}},
		&types.VMwareDVSTeamingHealthCheckConfig{VMwareDVSHealthCheckConfig: types.VMwareDVSHealthCheckConfig{
			DVSHealthCheckConfig: types.DVSHealthCheckConfig{Enable: &off, Interval: interval}}},
	}
	for i, ref := range hosts {
		h := s.Hosts[i]
		if h.Switch != "dvs" {
			continue
		}
		m := hostMember{ref: ref, uplinks: h.Uplinks, mtuBad: vmnicSet(h.HealthMtuBad),
			mismatch: vmnicSet(h.HealthMismatch), untrunked: vmnicSet(h.HealthUntrunked)}
		for j := range h.Uplinks {
			m.ports = append(m.ports, uplinkPortKey(i, j))
		}
		d.members = append(d.members, m)
	}
	d.refresh()
	simulator.Map.Put(d)
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
