// bufsim's ns-3 engine: reads a normalized bufsim scenario (the JSON of
// `bufsim.Scenario.normalized`, checked beforehand by bufsim.ns3) and runs
// the equivalent dumbbell in ns-3, writing the packet engine's outputs
// (summary, per-flow table, time series, congestion events) as JSON.
//
//   bufsim-ns3 SCENARIO.json OUT.json   run a scenario
//   bufsim-ns3 --defaults               print ns-3's TCP defaults as JSON
//
// The topology. Each flow has its own sender host, joined to the left
// router by an access link whose one-way delay is (rtt - 2 link.delay) / 2
// (bufsim's round trip: access link, bottleneck, an uncongested return
// path); each flow group has one receiver node behind the right router,
// with one listening socket. The bottleneck runs left to right at
// link.capacity; every other link, and the bottleneck's return direction,
// runs at 100 times the capacity (at least 10 Gbps; bufsim.ns3.fast_rate_bps
// computes it) with queues that never fill, unless a group sets access_rate
// and access_buffer. Routes are static (every host's default route leads to
// the left router, the routers' to each other): O(hosts) to build.
//
// Traffic as the packet engine draws it (traffic/ in the core; the draws
// are ns-3's random streams, so a seed gives another trajectory than the
// packet engine's): persistent flows and finite transfers start at the
// normalized starts_s with the normalized rtts_s, a finite transfer's size
// drawn from its group's law; an open-loop group's Poisson arrivals come
// as the run goes, each a transfer with its own RTT and size, refused when
// the group already has max_active transfers, else taking an idle host of
// the group (or a new one); a closed-loop user is one host that thinks,
// transfers, thinks again. A transfer's RTT becomes its host's access
// delay when it starts (the host has no other transfer then).
//
// The bottleneck's buffer. bufsim counts the packets waiting, not the one
// being serialized (ns-2's convention), and so does a point-to-point
// device queue: a packet leaves it when its transmission starts.
//   - droptail: no queue disc; the device queue holds `buffer` packets
//     (bytes mode: `buffer` bytes plus the 2-byte PPP header of each packet
//     that fits). ns-3 stops a full device queue and the traffic-control
//     layer drops the next packet (trace TcDrop); the queue's own Drop trace
//     is connected too and stays at 0.
//   - red, threshold, codel, fq_codel, pie: the queue disc holds buffer - 1
//     packets and the device queue one more (the smallest it can be), so
//     that the packets waiting are `buffer` as in bufsim. The disc sees its
//     own length, one less than bufsim's: `threshold` (mark when more than
//     K wait) is RED with MinTh = MaxTh = K, QW = 1, no hard drop (the
//     configuration of ns-3's DCTCP example), which marks when the disc
//     holds K, i.e. when K + 1 wait in all.
// The PPP header (2 bytes) is added to the bottleneck's data rate so that
// IP packets leave at link.capacity, and TCP timestamps are off so that a
// segment is the scenario's mss on the wire (20 + 20 bytes of headers).
//
// A chain of links (`links`): a router after each link, link k from
// router k to router k + 1, each built and measured as the bottleneck is
// (its return direction fast); a group's senders sit behind the router
// before its first link and its receiver behind the one after its last, a
// background source crosses its one link into a sink of its own. The first
// router's default route leads on, every other router's back towards the
// first, and a host further on is reached by host routes. The summary
// adds each link's `<metric>_link<k>` and takes the links together as the
// packet engine does (utilization weighted by capacity, queues summed).
//
// Two-way traffic (a `reverse` table): the bottleneck's return direction,
// right to left, takes the reverse link's rate, buffer and discipline as
// the bottleneck's own (the same device queue and queue disc rules), the
// reverse groups' senders sit behind the right router and their receivers
// behind the left one, and the receivers' pure ACKs are tagged so that the
// queues count them as ACKs: their drops are ack_drops, not a flow's loss
// or a congestion event. The forward senders' ACK inter-arrival times give
// the ACK compression measures, as in the packet engine.
//
// What it measures follows the packet engine's definitions (packet/collect.rs
// in the core): statistics over [warmup, duration], congestion events
// that start at a bottleneck drop and last one reference RTT, queueing
// delay from the arrival at the bottleneck (the disc or the device queue) to
// the start of the packet's transmission.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

using namespace ns3;
using json = nlohmann::json;

namespace
{

constexpr uint32_t BACKGROUND = std::numeric_limits<uint32_t>::max();
/// The tag of a segment without data: a receiver's pure ACK, or a sender's
/// SYN, handshake ACK or bare FIN. They count as packets of the queues they
/// cross, as ACKs do, and never as a flow's or the background's (the packet
/// engine sends the SYN and the handshake ACK, counting a dropped one as
/// its flow's, and no FIN).
constexpr uint32_t NO_DATA = BACKGROUND - 1;
constexpr uint32_t HEADERS = 40; // IPv4 + TCP without options
constexpr uint32_t PPP = 2;
const double NaN = std::numeric_limits<double>::quiet_NaN();

/// The flow a packet belongs to, set by its sender (the Tx trace of its
/// socket, or the background source), read at the bottleneck.
class FlowTag : public Tag
{
  public:
    uint32_t flow = 0;

    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("bufsim::FlowTag").SetParent<Tag>().AddConstructor<FlowTag>();
        return tid;
    }

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    uint32_t GetSerializedSize() const override
    {
        return 4;
    }

    void Serialize(TagBuffer b) const override
    {
        b.WriteU32(flow);
    }

    void Deserialize(TagBuffer b) override
    {
        flow = b.ReadU32();
    }

    void Print(std::ostream& os) const override
    {
        os << "flow=" << flow;
    }
};

constexpr uint32_t NO_USER = std::numeric_limits<uint32_t>::max();

struct Flow
{
    uint32_t id = 0;
    uint32_t group = 0;
    uint32_t host = 0;
    uint32_t user = NO_USER; // closed-loop user, or NO_USER
    double rtt = 0;
    double start = 0;
    bool finite = false;
    uint64_t size_pkts = 0;
    uint32_t mss = 0;     // packet on the wire, bytes
    uint32_t payload = 0; // mss - 40
    uint64_t total = 0;   // payload bytes of a finite transfer
    Ptr<Socket> tx;
    uint64_t handed = 0; // payload bytes given to the socket
    bool active = false;
    bool done = false;
    bool long_ = false;
    double end = NaN;
    uint64_t rx = 0;
    uint64_t rx_warm = 0;
    uint64_t sent = 0;
    uint64_t sent_warm = 0;
    uint32_t high_tx = 0;
    uint64_t retx = 0;
    uint64_t timeouts = 0;
    bool in_loss = false; // in CA_LOSS (after a timeout, until recovered)
    uint64_t recoveries = 0;
    uint64_t drops = 0;
    uint64_t drops_warm = 0;
    uint64_t queued = 0;
    double qsum = 0;
    double jsum = 0;
    double last_q = -1;
    uint64_t event_stamp = 0;
    uint32_t cwnd = 0;
    Time last_ack; // two-way traffic: when its sender last took an ACK (0: none yet)
};

/// What is measured of one direction's queue and link: the bottleneck's
/// (left to right), or with two-way traffic the reverse link's.
struct Side
{
    double C = 0; // the link's capacity, bit/s
    uint64_t waiting = 0;
    uint64_t max_waiting = 0;
    double area = 0;
    double area_t = 0;
    double area_warm = 0;
    double ts_area_prev = 0;
    // arrival time of each packet waiting, by the packet object (a packet
    // keeps its object from the queue to the wire; uids are shared by the
    // segments TCP cuts from one application write)
    std::unordered_map<const Packet*, double> since;
    uint64_t arrivals_win = 0;
    uint64_t drops_win = 0;
    uint64_t departures = 0;     // whole run
    uint64_t departures_win = 0;
    double bits_win = 0;
    double bits_interval = 0;
    std::vector<float> delays;
    std::vector<double> ts_queue;
};

/// A sender node and its access link to the left router.
struct Host
{
    Ptr<Node> node;
    Ptr<PointToPointChannel> channel;
    Ipv4Address addr;
};

struct Run
{
    json s;
    double fast = 0;  // the rate of every link but the bottleneck, bit/s
    std::string big = "1000000p"; // a queue that never fills
    Ptr<Node> left;   // the router before the bottleneck (a chain's first)
    Ptr<Node> right;  // the router after it (a chain's last)
    std::vector<Ptr<Node>> routers; // in order: link k joins k and k + 1
    std::vector<NetDeviceContainer> hop_dev;      // each forward link's two ends
    std::vector<Ipv4InterfaceContainer> hop_addr; // and their addresses
    std::vector<double> hop_delay;  // each forward link's one-way delay, s
    std::vector<Host> hosts;
    std::vector<uint32_t> user_host;          // closed-loop user -> host
    std::vector<uint32_t> user_group;         // closed-loop user -> group
    std::vector<uint32_t> group_active;       // active transfers per group
    std::vector<std::vector<uint32_t>> idle;  // open-loop hosts free, per group
    uint32_t mtu = 1500;
    std::vector<Ptr<Node>> receivers;         // one per group
    std::vector<Ipv4Address> rx_addr;         // receiver addresses, per group
    std::map<std::pair<uint32_t, uint16_t>, uint32_t> by_addr; // sender -> flow
    Ptr<UniformRandomVariable> uniform;
    Ptr<NormalRandomVariable> normal;
    double warmup = 0;
    double duration = 0;
    double interval = 0;
    double sync_window = 0;
    std::vector<Flow> flows;
    bool in_window = false;
    // the forward links' queues (the bottleneck, or a chain's links in
    // order), and with two-way traffic the reverse link's
    std::vector<Side> hops;
    Side rev;
    // per group: a reverse group (two-way traffic), and the last queue its
    // data crosses: the reverse link's, its last link's on a chain, else
    // the bottleneck's
    std::vector<bool> reverse_group;
    std::vector<const Side*> last_side;
    DataRate fwd_rate; // the bottleneck device's rate
    bool two_way = false;
    uint64_t delivered = 0; // data packets that left a queue for the wire
    uint64_t ack_drops_win = 0;
    // ACK inter-arrival at the forward senders (two-way traffic): the
    // gaps, and how many were shorter than a segment takes at the
    // bottleneck
    std::vector<float> ack_gaps;
    uint64_t ack_compressed = 0;
    uint64_t drops_total = 0;
    uint64_t bg_drops_win = 0;
    uint64_t drops_interval = 0;
    uint64_t marks_win = 0;
    // flow-level
    uint32_t active = 0;
    uint32_t longs = 0;
    double flow_area_t = 0;
    double active_area = 0;
    double long_area = 0;
    uint64_t completed_win = 0;
    uint64_t arrived_win = 0;
    uint64_t refused = 0;
    uint32_t active_max = 0;
    // congestion events
    uint64_t event_id = 0;
    double event_start = 0;
    uint32_t event_flows = 0;
    uint32_t event_active = 0;
    std::vector<double> ev_time;
    std::vector<double> ev_frac;
    // time series
    std::vector<double> ts_time, ts_util, ts_drops, ts_active, ts_long;
    std::vector<std::vector<double>> ts_cwnd;
    double ts_prev = 0;
    // the largest increase of one flow's cwnd on one event, segments (a
    // diagnostic: ns-3.37's CUBIC adds every acknowledged segment in slow
    // start, uncapped, see the ns3 stack profile)
    double max_cwnd_step = 0;
};

Run R;

double Now()
{
    return Simulator::Now().GetSeconds();
}

void Integrate(Side& q)
{
    double t = Now();
    q.area += q.waiting * (t - q.area_t);
    q.area_t = t;
}

/// Every side measured: the forward links, then the reverse link.
std::vector<Side*> Sides()
{
    std::vector<Side*> out;
    for (Side& h : R.hops)
        out.push_back(&h);
    out.push_back(&R.rev);
    return out;
}

void TickFlows()
{
    double t = Now();
    if (R.in_window)
    {
        R.active_area += R.active * (t - R.flow_area_t);
        R.long_area += R.longs * (t - R.flow_area_t);
    }
    R.flow_area_t = t;
}

/// Whether group `g` is a reverse group (two-way traffic): its data
/// crosses the reverse link, and the forward link's flow counts, goodput
/// and fairness leave it out (as packet/collect.rs in the core).
bool Reverse(uint32_t g)
{
    return R.reverse_group[g];
}

/// The last queue group `g`'s data crosses (read per packet: set once in
/// Build, as `reverse_group`).
const Side* LastSide(uint32_t g)
{
    return R.last_side[g];
}

uint32_t FlowOf(Ptr<const Packet> p)
{
    FlowTag tag;
    return p->PeekPacketTag(tag) ? tag.flow : BACKGROUND;
}

// --- traffic draws (traffic/ in the core) ------------------------------------

/// A transfer's size, packets: a draw of the normalized law (traffic/size.rs),
/// rounded up to a whole packet, at least one.
uint64_t DrawSize(const json& law)
{
    auto [kind, p] = *law.items().begin();
    double x = 0;
    if (kind == "fixed")
        x = p["pkts"].get<double>();
    else if (kind == "exponential")
        x = -p["mean_pkts"].get<double>() * std::log(1.0 - R.uniform->GetValue());
    else if (kind == "pareto")
        x = p["min_pkts"].get<double>() *
            std::pow(1.0 - R.uniform->GetValue(), -1.0 / p["shape"].get<double>());
    else if (kind == "lognormal")
        x = p["median_pkts"].get<double>() *
            std::exp(p["sigma"].get<double>() * R.normal->GetValue());
    else if (kind == "uniform")
        return R.uniform->GetInteger(p["lo_pkts"].get<uint32_t>(), p["hi_pkts"].get<uint32_t>());
    else if (kind == "mixture")
    {
        double u = R.uniform->GetValue();
        for (const json& c : p)
        {
            if (u < c["weight"].get<double>())
                return DrawSize(c["dist"]);
            u -= c["weight"].get<double>();
        }
        return DrawSize(p.back()["dist"]);
    }
    else if (kind == "empirical")
    {
        // Piecewise linear through (pkts, cdf); the first point an atom.
        const json& pts = p["points"];
        double u = R.uniform->GetValue();
        size_t i = 0;
        while (i < pts.size() && pts[i][1].get<double>() < u)
            i++;
        if (i == 0)
            x = pts[0][0].get<double>();
        else if (i >= pts.size())
            x = pts.back()[0].get<double>();
        else
        {
            double x0 = pts[i - 1][0], f0 = pts[i - 1][1], x1 = pts[i][0], f1 = pts[i][1];
            x = x0 + (x1 - x0) * (u - f0) / (f1 - f0);
        }
    }
    else
        NS_FATAL_ERROR("bufsim-ns3: unsupported size law " << kind);
    return uint64_t(std::min(std::max(std::ceil(x), 1.0), 1e15));
}

/// A new transfer's round-trip propagation delay, s (traffic::RttDraw).
double DrawRtt(const json& draw)
{
    auto [kind, p] = *draw.items().begin();
    if (kind == "fixed")
        return p.get<double>();
    if (kind == "choice")
        return p[R.uniform->GetInteger(0, uint32_t(p.size() - 1))].get<double>();
    if (kind == "uniform")
        return R.uniform->GetValue(p[0].get<double>(), p[1].get<double>());
    NS_FATAL_ERROR("bufsim-ns3: unsupported rtt draw " << kind);
}

/// A closed-loop user's think time, s (traffic::ThinkDist).
double DrawThink(const json& think)
{
    auto [kind, p] = *think.items().begin();
    double mean = p.get<double>();
    return kind == "fixed" ? mean : -mean * std::log(1.0 - R.uniform->GetValue());
}

// --- the bottleneck (and the reverse link) -----------------------------

// Every trace below is bound to the side it watches: a forward link's
// queue (&R.hops[k]: the bottleneck's, or a chain link's) or, with two-way
// traffic, the reverse link's (&R.rev).

void Arrive(Side* q, Ptr<const Packet> p)
{
    Integrate(*q);
    q->waiting++;
    q->max_waiting = std::max(q->max_waiting, R.in_window ? q->waiting : 0);
    q->since[PeekPointer(p)] = Now();
    if (R.in_window)
    {
        q->arrivals_win++;
    }
}

void CloseEvent()
{
    if (R.event_id > 0 && R.event_active > 0)
    {
        R.ev_time.push_back(R.event_start);
        R.ev_frac.push_back(double(R.event_flows) / R.event_active);
    }
    R.event_id = std::max<uint64_t>(R.event_id, 1);
}

// A packet dropped at side `q`; `queued` when it had been admitted (a head
// drop by CoDel). The drop of a segment without data (NO_DATA: an ACK, a
// SYN, a bare FIN) counts in the queue's drops and in ack_drops; a data
// packet's in its flow's; only the bottleneck's data drops open congestion
// events (as packet/collect.rs in the core).
void Dropped(Side* q, Ptr<const Packet> p, bool queued)
{
    if (queued)
    {
        Integrate(*q);
        q->waiting--;
        q->since.erase(PeekPointer(p));
    }
    uint32_t f = FlowOf(p);
    if (R.in_window)
    {
        q->arrivals_win += queued ? 0 : 1;
        q->drops_win++;
    }
    if (f == NO_DATA)
    {
        R.ack_drops_win += R.in_window ? 1 : 0;
        return;
    }
    if (f != BACKGROUND)
    {
        R.flows[f].drops++;
    }
    R.drops_total++;
    if (q == &R.rev)
    {
        return;
    }
    R.drops_interval++;
    if (!R.in_window)
    {
        return;
    }
    double t = Now();
    if (R.event_id == 0 || t >= R.event_start + R.sync_window)
    {
        CloseEvent();
        R.event_id++;
        R.event_start = t;
        R.event_flows = 0;
        R.event_active = R.active;
    }
    if (f == BACKGROUND)
    {
        R.bg_drops_win++;
    }
    else if (R.flows[f].event_stamp != R.event_id)
    {
        R.flows[f].event_stamp = R.event_id;
        R.event_flows++;
    }
}

void TcDrop(Side* q, Ptr<const Packet> p)
{
    Dropped(q, p, false);
}

void DeviceQueueDrop(Side* q, Ptr<const Packet> p)
{
    Dropped(q, p, false);
}

void DiscEnqueue(Side* q, Ptr<const QueueDiscItem> item)
{
    Arrive(q, item->GetPacket());
}

void DiscDropBefore(Side* q, Ptr<const QueueDiscItem> item, const char*)
{
    Dropped(q, item->GetPacket(), false);
}

void DiscDropAfter(Side* q, Ptr<const QueueDiscItem> item, const char*)
{
    Dropped(q, item->GetPacket(), true);
}

void DiscMark(Side* q, Ptr<const QueueDiscItem>, const char*)
{
    if (R.in_window && q != &R.rev)
    {
        R.marks_win++;
    }
}

void TxBegin(Side* q, Ptr<const Packet> p)
{
    Integrate(*q);
    q->waiting--;
    q->departures++;
    uint32_t f = FlowOf(p);
    // Delivered: a data or background packet leaving its last queue (on a
    // chain a flow's data crosses several).
    R.delivered += f != NO_DATA && (f == BACKGROUND || q == LastSide(R.flows[f].group)) ? 1 : 0;
    double t = Now();
    double wait = 0;
    auto it = q->since.find(PeekPointer(p));
    if (it != q->since.end())
    {
        wait = t - it->second;
        q->since.erase(it);
    }
    double bits = double(p->GetSize() - PPP) * 8.0;
    q->bits_interval += bits;
    if (!R.in_window)
    {
        return;
    }
    q->bits_win += bits;
    q->departures_win++;
    q->delays.push_back(float(wait));
    // A flow's queueing delay: its data's, at the link it crosses.
    if (f != BACKGROUND && f != NO_DATA)
    {
        Flow& fl = R.flows[f];
        fl.queued++;
        fl.qsum += wait;
        if (fl.last_q >= 0)
        {
            fl.jsum += std::fabs(wait - fl.last_q);
        }
        fl.last_q = wait;
    }
}

// --- the senders ----------------------------------------------------------

TypeId Variant(const std::string& v);
TypeId Recovery(const json& g);
void ConfigureSocket(Ptr<Socket> s, const json& g);
void Wake(uint32_t u);
uint32_t AddHost(const json& g, double rtt);

/// The listening port of group `g`'s receiver.
uint16_t Port(uint32_t g)
{
    return uint16_t(10000 + g);
}

/// The one-way delay of the access link of a flow of group `g` whose RTT
/// is `rtt`, s: what the links it crosses (a chain's `links`, else the
/// bottleneck) leave of the one-way trip.
double AccessDelay(const json& g, double rtt)
{
    double path = 0;
    if (g.contains("links"))
        for (const json& k : g["links"])
            path += R.hop_delay[k.get<size_t>()];
    else
        path = R.hop_delay[0];
    return rtt / 2.0 - path;
}

void Fill(uint32_t i)
{
    Flow& f = R.flows[i];
    if (f.done)
    {
        return;
    }
    while (true)
    {
        uint32_t room = f.tx->GetTxAvailable();
        uint64_t left = f.finite ? f.total - f.handed : uint64_t(1) << 20;
        uint32_t n = uint32_t(std::min<uint64_t>({room, left, 1u << 16}));
        if (n == 0)
        {
            return;
        }
        int sent = f.tx->Send(Create<Packet>(n));
        if (sent <= 0)
        {
            return;
        }
        f.handed += uint64_t(sent);
    }
}

void OnSendSpace(uint32_t i, Ptr<Socket>, uint32_t)
{
    Fill(i);
}

void OnConnected(uint32_t i, Ptr<Socket>)
{
    Fill(i);
}

void OnConnectFailed(uint32_t i, Ptr<Socket>)
{
    std::cerr << "bufsim-ns3: flow " << i << " could not connect\n";
}

void OnTx(uint32_t i, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    FlowTag tag;
    tag.flow = p->GetSize() == 0 ? NO_DATA : i;
    const_cast<Packet*>(PeekPointer(p))->ReplacePacketTag(tag);
    if (p->GetSize() == 0)
    {
        return;
    }
    Flow& f = R.flows[i];
    f.sent++;
    uint32_t end = h.GetSequenceNumber().GetValue() + p->GetSize();
    if (f.sent > 1 && int32_t(end - f.high_tx) <= 0)
    {
        f.retx++;
    }
    else
    {
        f.high_tx = end;
    }
}

void OnCongState(uint32_t i,
                 TcpSocketState::TcpCongState_t,
                 TcpSocketState::TcpCongState_t now)
{
    Flow& f = R.flows[i];
    f.in_loss = now == TcpSocketState::CA_LOSS;
    if (now == TcpSocketState::CA_LOSS)
    {
        f.timeouts++;
    }
    else if (now == TcpSocketState::CA_RECOVERY)
    {
        f.recoveries++;
    }
}

/// The retransmission timeout changed. Every expiry doubles it
/// (TcpSocketBase::ReTxTimeout, capped at 60 s), but only the first of a
/// loss episode changes CongState (a TracedValue fires on a change alone):
/// a doubling in CA_LOSS is a further expiry, counted as the packet engine
/// counts every one. An RTT sample sets it to max(srtt + 4 rttvar, MinRto),
/// which doubles the old value only by coincidence.
void OnRto(uint32_t i, Time old, Time now)
{
    Flow& f = R.flows[i];
    if (f.in_loss && now == Min(old + old, Seconds(60)))
    {
        f.timeouts++;
    }
}

void OnSsthresh(uint32_t i, uint32_t, uint32_t now)
{
    Flow& f = R.flows[i];
    if (!f.long_ && now < std::numeric_limits<uint32_t>::max() && f.active)
    {
        TickFlows();
        f.long_ = true;
        R.longs += Reverse(f.group) ? 0 : 1;
    }
}

void OnCwnd(uint32_t i, uint32_t old, uint32_t now)
{
    if (now > old)
    {
        R.max_cwnd_step = std::max(R.max_cwnd_step, double(now - old) / R.flows[i].payload);
    }
    R.flows[i].cwnd = now;
}

void OnHighestRxAck(uint32_t i, SequenceNumber32, SequenceNumber32 now)
{
    Flow& f = R.flows[i];
    // ns-3's initial sequence number is 0: the SYN takes 0, data 1..total.
    if (f.finite && !f.done && uint64_t(now.GetValue()) >= f.total + 1)
    {
        TickFlows();
        f.done = true;
        f.end = Now();
        R.group_active[f.group]--;
        if (!Reverse(f.group))
        {
            R.active--;
            R.longs -= f.long_ ? 1 : 0;
            R.completed_win += R.in_window && f.start >= R.warmup ? 1 : 0;
        }
        f.tx->Close();
        if (R.s["flows"][f.group]["kind"] == "open")
        {
            R.idle[f.group].push_back(f.host);
        }
        else if (f.user != NO_USER)
        {
            // The user thinks from the end its sender sees.
            double think = DrawThink(R.s["flows"][f.group]["think"]);
            Simulator::Schedule(Seconds(think), &Wake, f.user);
        }
    }
}

/// Two-way traffic: a forward sender takes a packet (an ACK); the gap since
/// its last one, in the window, is measured (TwoWaySummary).
void OnAckRx(uint32_t i, Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (h.GetFlags() & TcpHeader::SYN)
    {
        return; // the SYN-ACK: the packet engine's ACKs start with data
    }
    Flow& f = R.flows[i];
    Time t = Simulator::Now();
    if (R.in_window && f.last_ack.IsPositive())
    {
        Time gap = t - f.last_ack;
        R.ack_gaps.push_back(float(gap.GetSeconds()));
        // Against the segment's serialization as the bottleneck's device
        // runs it, in ns-3's integer time: ACKs spaced by back-to-back
        // segments are not compressed.
        R.ack_compressed += gap < R.fwd_rate.CalculateBytesTxTime(f.mss + PPP) ? 1 : 0;
    }
    f.last_ack = t;
}

/// Flow `i` starts: its socket is made with its group's settings and connects.
void Start(uint32_t i)
{
    const json& g = R.s["flows"][R.flows[i].group];
    uint32_t group = R.flows[i].group;
    TickFlows();
    Flow& f = R.flows[i];
    f.active = true;
    R.group_active[group]++;
    if (!Reverse(group))
    {
        R.active++;
        R.active_max = std::max(R.active_max, R.active);
        R.arrived_win += R.in_window && f.finite && f.start >= R.warmup ? 1 : 0;
    }
    // The variant's parameters, as bufsim.ns3.cc_attributes maps them (every
    // attribute the variant has, so no group's setting leaks into another's).
    for (const auto& [name, value] : R.s["ns3"]["attributes"][group].items())
    {
        Config::SetDefault(name, StringValue(value.get<std::string>()));
    }
    Config::SetDefault("ns3::TcpSocketState::EnablePacing",
                       BooleanValue(g["cc"]["variant"] == "bbr"));
    const Host& h = R.hosts[f.host];
    Ptr<TcpL4Protocol> tcp = h.node->GetObject<TcpL4Protocol>();
    tcp->SetAttribute("SocketType", TypeIdValue(Variant(g["cc"]["variant"])));
    tcp->SetAttribute("RecoveryType", TypeIdValue(Recovery(g)));
    f.tx = Socket::CreateSocket(h.node, TcpSocketFactory::GetTypeId());
    ConfigureSocket(f.tx, g);
    f.tx->Bind();
    Address local;
    f.tx->GetSockName(local);
    R.by_addr[{h.addr.Get(), InetSocketAddress::ConvertFrom(local).GetPort()}] = i;
    f.tx->SetConnectCallback(MakeBoundCallback(&OnConnected, i),
                             MakeBoundCallback(&OnConnectFailed, i));
    f.tx->SetSendCallback(MakeBoundCallback(&OnSendSpace, i));
    f.tx->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTx, i));
    f.tx->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, i));
    f.tx->TraceConnectWithoutContext("RTO", MakeBoundCallback(&OnRto, i));
    f.tx->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&OnSsthresh, i));
    f.tx->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, i));
    f.tx->TraceConnectWithoutContext("HighestRxAck", MakeBoundCallback(&OnHighestRxAck, i));
    if (R.two_way && !Reverse(group))
    {
        f.tx->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnAckRx, i));
    }
    f.tx->Connect(InetSocketAddress(R.rx_addr[group], Port(group)));
}

/// A new flow of group `group` arriving now at `host`, with its RTT and
/// size drawn; returns its id. Its RTT becomes the host's access delay (a
/// reused host has no other transfer).
uint32_t NewTransfer(uint32_t group, uint32_t host, double rtt)
{
    const json& g = R.s["flows"][group];
    Flow f;
    f.id = uint32_t(R.flows.size());
    f.group = group;
    f.host = host;
    f.rtt = rtt;
    f.start = Now();
    f.finite = true;
    f.mss = g["mss_bytes"].get<uint32_t>();
    f.payload = f.mss - HEADERS;
    f.size_pkts = DrawSize(g["size"]);
    f.total = f.size_pkts * f.payload;
    R.hosts[host].channel->SetAttribute("Delay", TimeValue(Seconds(AccessDelay(g, rtt))));
    R.flows.push_back(f);
    return f.id;
}

/// A closed-loop user's next transfer.
void Wake(uint32_t u)
{
    uint32_t group = R.user_group[u];
    uint32_t i = NewTransfer(group, R.user_host[u], DrawRtt(R.s["flows"][group]["rtt_draw"]));
    R.flows[i].user = u;
    Start(i);
}

/// An open-loop arrival of group `group`, and the next one scheduled (the
/// Poisson process runs to the end of the run). Refused when the group has
/// max_active transfers; else it takes an idle host of the group, or a new
/// one (started one event later, once ns-3 has initialized the node).
void Arrival(uint32_t group)
{
    const json& g = R.s["flows"][group];
    double gap = -std::log(1.0 - R.uniform->GetValue()) / g["arrival_rate_per_s"].get<double>();
    if (Now() + gap < R.duration)
    {
        Simulator::Schedule(Seconds(gap), &Arrival, group);
    }
    double rtt = DrawRtt(g["rtt_draw"]);
    if (R.group_active[group] >= g["max_active"].get<uint32_t>())
    {
        R.refused++;
        return;
    }
    std::vector<uint32_t>& idle = R.idle[group];
    if (!idle.empty())
    {
        uint32_t host = idle.back();
        idle.pop_back();
        Start(NewTransfer(group, host, rtt));
        return;
    }
    uint32_t i = NewTransfer(group, AddHost(g, rtt), rtt);
    R.group_active[group]++; // held from now, so the cap counts it
    Simulator::ScheduleNow([i]() {
        R.group_active[R.flows[i].group]--;
        Start(i);
    });
}

// --- the receivers ----------------------------------------------------------

void OnRecv(uint32_t i, Ptr<Socket> s)
{
    Ptr<Packet> p;
    while ((p = s->Recv()) && p->GetSize() > 0)
    {
        R.flows[i].rx += p->GetSize();
    }
}

/// A receiver sends a packet: with two-way traffic its pure ACKs are
/// tagged, so that the queues they cross count them as ACKs.
void OnAckTx(Ptr<const Packet> p, const TcpHeader&, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() == 0)
    {
        FlowTag tag;
        tag.flow = NO_DATA;
        const_cast<Packet*>(PeekPointer(p))->ReplacePacketTag(tag);
    }
}

/// A group's listener accepted a connection: the flow is its sender's.
void OnAccept(Ptr<Socket> s, const Address& from)
{
    InetSocketAddress a = InetSocketAddress::ConvertFrom(from);
    uint32_t i = R.by_addr.at({a.GetIpv4().Get(), a.GetPort()});
    s->SetRecvCallback(MakeBoundCallback(&OnRecv, i));
    if (R.two_way)
    {
        s->TraceConnectWithoutContext("Tx", MakeCallback(&OnAckTx));
    }
}

// --- background -------------------------------------------------------------

struct Background
{
    Ptr<Socket> sock;
    Ptr<ExponentialRandomVariable> gap;
    uint32_t payload = 0;
};

std::vector<Background> BG;

void SendBackground(size_t k)
{
    Background& b = BG[k];
    Ptr<Packet> p = Create<Packet>(b.payload);
    FlowTag tag;
    tag.flow = BACKGROUND;
    p->AddPacketTag(tag);
    b.sock->Send(p);
    Simulator::Schedule(Seconds(b.gap->GetValue()), &SendBackground, k);
}

// --- sampling ---------------------------------------------------------------

void Sample()
{
    double t = Now();
    double dt = t - R.ts_prev;
    R.ts_time.push_back(t);
    // The forward links' utilization together, weighted by capacity.
    double bits = 0, cap = 0;
    for (Side& h : R.hops)
    {
        bits += h.bits_interval;
        cap += h.C;
        h.bits_interval = 0;
    }
    R.ts_util.push_back(dt > 0 ? bits / (cap * dt) : 0.0);
    for (Side* q : Sides())
    {
        Integrate(*q);
        q->ts_queue.push_back(dt > 0 ? (q->area - q->ts_area_prev) / dt : 0.0);
        q->ts_area_prev = q->area;
    }
    R.ts_drops.push_back(double(R.drops_interval));
    R.ts_active.push_back(R.active);
    R.ts_long.push_back(R.longs);
    size_t k = 0;
    for (const Flow& f : R.flows)
    {
        if (!f.finite && k < R.ts_cwnd.size())
        {
            R.ts_cwnd[k++].push_back(double(f.cwnd) / f.payload);
        }
    }
    R.ts_prev = t;
    R.drops_interval = 0;
    if (t + R.interval <= R.duration + 1e-12)
    {
        Simulator::Schedule(Seconds(R.interval), &Sample);
    }
}

void WarmupEnd()
{
    for (Side* q : Sides())
    {
        Integrate(*q);
        q->area_warm = q->area;
    }
    TickFlows();
    R.in_window = true;
    for (Flow& f : R.flows)
    {
        f.rx_warm = f.rx;
        f.sent_warm = f.sent;
        f.drops_warm = f.drops;
        f.queued = 0;
        f.qsum = 0;
        f.jsum = 0;
        f.last_q = -1;
    }
}

void Progress(double every)
{
    std::cerr << "progress " << Now() << std::endl;
    if (Now() + every < R.duration)
    {
        Simulator::Schedule(Seconds(every), &Progress, every);
    }
}

// --- building ---------------------------------------------------------------

TypeId Variant(const std::string& v)
{
    if (v == "newreno")
        return TcpNewReno::GetTypeId();
    if (v == "cubic")
        return TcpCubic::GetTypeId();
    if (v == "highspeed")
        return TcpHighSpeed::GetTypeId();
    if (v == "htcp")
        return TcpHtcp::GetTypeId();
    if (v == "scalable")
        return TcpScalable::GetTypeId();
    if (v == "bbr")
        return TcpBbr::GetTypeId();
    if (v == "dctcp")
        return TcpDctcp::GetTypeId();
    NS_FATAL_ERROR("bufsim-ns3: unsupported tcp " << v);
}

/// The loss recovery of group `g`'s senders: PRR (RFC 6937) or RFC 6675's.
TypeId Recovery(const json& g)
{
    return g["prr"].get<bool>() ? TcpPrrRecovery::GetTypeId() : TcpClassicRecovery::GetTypeId();
}

std::string Bps(double bps)
{
    return std::to_string(uint64_t(std::llround(bps))) + "bps";
}

/// A time as the string attributes of ns-3's CoDel discs take it.
StringValue Ns(double seconds)
{
    return StringValue(std::to_string(int64_t(std::llround(seconds * 1e9))) + "ns");
}

/// TCP settings of a group's sockets, sender and receiver alike.
void ConfigureSocket(Ptr<Socket> s, const json& g)
{
    uint32_t mss = g["mss_bytes"].get<uint32_t>();
    s->SetAttribute("SegmentSize", UintegerValue(mss - HEADERS));
    s->SetAttribute("Timestamp", BooleanValue(false));
    s->SetAttribute("Sack", BooleanValue(g["sack"].get<bool>()));
    s->SetAttribute("InitialCwnd", UintegerValue(g["initial_window_pkts"].get<uint32_t>()));
    s->SetAttribute("MinRto", TimeValue(Seconds(g["min_rto_s"].get<double>())));
    s->SetAttribute("DelAckCount", UintegerValue(g["delayed_ack"].get<bool>() ? 2 : 1));
    s->SetAttribute("DelAckTimeout", TimeValue(Seconds(g["delack_timeout_s"].get<double>())));
    // No receive-window cap unless the scenario sets rwnd; the send buffer
    // never limits a sender (bufsim's senders always have data).
    uint64_t big = 1u << 30;
    uint64_t rcv = g["rwnd_pkts"].is_null()
                       ? big
                       : g["rwnd_pkts"].get<uint64_t>() * uint64_t(mss - HEADERS);
    s->SetAttribute("RcvBufSize", UintegerValue(uint32_t(std::min<uint64_t>(rcv, big))));
    s->SetAttribute("SndBufSize", UintegerValue(uint32_t(big)));
    bool ecn = g["ecn"].get<bool>();
    s->SetAttribute("UseEcn", EnumValue(ecn ? TcpSocketState::On : TcpSocketState::Off));
}

NetDeviceContainer Link(Ptr<Node> a,
                        Ptr<Node> b,
                        double rate_bps,
                        double delay_s,
                        const std::string& queue_a,
                        uint32_t mtu)
{
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue(Bps(rate_bps)));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(mtu));
    p2p.SetChannelAttribute("Delay", TimeValue(Seconds(delay_s)));
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1000000p"));
    NetDeviceContainer d = p2p.Install(a, b);
    d.Get(0)->GetObject<PointToPointNetDevice>()->GetQueue()->SetAttribute(
        "MaxSize",
        StringValue(queue_a));
    return d;
}

/// Addresses for a new link's two ends (a /30 of its own), and no queue
/// disc on either: a packet waits in the device queue only.
Ipv4InterfaceContainer Assign(NetDeviceContainer d)
{
    static Ipv4AddressHelper ip("10.0.0.0", "255.255.255.252");
    Ipv4InterfaceContainer c = ip.Assign(d);
    ip.NewNetwork();
    for (uint32_t k = 0; k < d.GetN(); k++)
    {
        Ptr<NetDevice> dev = d.Get(k);
        Ptr<TrafficControlLayer> tc = dev->GetNode()->GetObject<TrafficControlLayer>();
        if (tc && tc->GetRootQueueDiscOnDevice(dev))
        {
            tc->DeleteRootQueueDiscOnDevice(dev);
        }
    }
    return c;
}

/// The interface number of device `dev` on its node.
uint32_t Iface(Ptr<NetDevice> dev)
{
    return uint32_t(dev->GetNode()->GetObject<Ipv4>()->GetInterfaceForDevice(dev));
}

/// A host at router `at` of a chain (`addr`): the routers between the
/// first and it, whose default routes lead back, reach it over their next
/// link (none on the dumbbell, whose right router is its last).
void AddRouteRight(Ipv4Address addr, size_t at)
{
    for (size_t k = 1; k < at; k++)
    {
        Ipv4StaticRoutingHelper()
            .GetStaticRouting(R.routers[k]->GetObject<Ipv4>())
            ->AddHostRouteTo(addr, R.hop_addr[k].GetAddress(1), Iface(R.hop_dev[k].Get(0)));
    }
}

/// `node`'s default route: through `gateway` on interface `iface`.
void DefaultRoute(Ptr<Node> node, Ipv4Address gateway, uint32_t iface)
{
    Ipv4StaticRoutingHelper().GetStaticRouting(node->GetObject<Ipv4>())->SetDefaultRoute(gateway,
                                                                                           iface);
}

/// The bottleneck's queue disc (none for droptail); returns it.
Ptr<QueueDisc> InstallDisc(Ptr<NetDevice> dev, const json& link)
{
    std::string q = link["qdisc"];
    if (q == "droptail")
    {
        return nullptr;
    }
    const json& p = link["qdisc_params"];
    uint32_t limit = link["buffer_pkts"].get<uint32_t>() - 1;
    std::string size = std::to_string(limit) + "p";
    double pkt = link["packet_size_bytes"].get<double>();
    TrafficControlHelper tch;
    if (q == "red")
    {
        tch.SetRootQueueDisc("ns3::RedQueueDisc",
                             "MaxSize", StringValue(size),
                             "MinTh", DoubleValue(p["min_th"].get<double>()),
                             "MaxTh", DoubleValue(p["max_th"].get<double>()),
                             "QW", DoubleValue(p["w_q"].get<double>()),
                             "LInterm", DoubleValue(1.0 / p["max_p"].get<double>()),
                             "Gentle", BooleanValue(p["gentle"].get<bool>()),
                             "UseEcn", BooleanValue(p["ecn"].get<bool>()),
                             "UseHardDrop", BooleanValue(p["hard_drop"].get<bool>()),
                             // Floyd & Jacobson 1993's pa = pb / (1 - count pb),
                             // as the packet engine (Wait = true is ns-2's wait_).
                             "Wait", BooleanValue(false),
                             "MeanPktSize", UintegerValue(uint32_t(pkt)),
                             "LinkBandwidth", StringValue(Bps(link["capacity_bps"].get<double>())),
                             "LinkDelay", TimeValue(Seconds(link["delay_s"].get<double>())));
    }
    else if (q == "threshold")
    {
        double k = p["k"].get<double>();
        tch.SetRootQueueDisc("ns3::RedQueueDisc",
                             "MaxSize", StringValue(size),
                             "MinTh", DoubleValue(k),
                             "MaxTh", DoubleValue(k),
                             "QW", DoubleValue(1.0),
                             "Gentle", BooleanValue(false),
                             "UseEcn", BooleanValue(true),
                             "UseHardDrop", BooleanValue(false),
                             "MeanPktSize", UintegerValue(uint32_t(pkt)));
    }
    else if (q == "codel")
    {
        tch.SetRootQueueDisc("ns3::CoDelQueueDisc",
                             "MaxSize", StringValue(size),
                             "Target", Ns(p["target_s"].get<double>()),
                             "Interval", Ns(p["interval_s"].get<double>()),
                             "MinBytes", UintegerValue(uint32_t(pkt)));
    }
    else if (q == "fq_codel")
    {
        tch.SetRootQueueDisc("ns3::FqCoDelQueueDisc",
                             "MaxSize", StringValue(size),
                             "Flows", UintegerValue(p["flows"].get<uint32_t>()),
                             "DropBatchSize", UintegerValue(p["drop_batch"].get<uint32_t>()),
                             "Target", Ns(p["target_s"].get<double>()),
                             "Interval", Ns(p["interval_s"].get<double>()),
                             "UseEcn", BooleanValue(false));
    }
    else if (q == "pie")
    {
        tch.SetRootQueueDisc("ns3::PieQueueDisc",
                             "MaxSize", StringValue(size),
                             "QueueDelayReference", TimeValue(Seconds(p["target_s"].get<double>())),
                             "Tupdate", TimeValue(Seconds(p["t_update_s"].get<double>())),
                             "A", DoubleValue(p["alpha"].get<double>()),
                             "B", DoubleValue(p["beta"].get<double>()),
                             "MaxBurstAllowance", TimeValue(Seconds(p["max_burst_s"].get<double>())),
                             "MeanPktSize", UintegerValue(uint32_t(pkt)));
    }
    else
    {
        NS_FATAL_ERROR("bufsim-ns3: unsupported qdisc " << q);
    }
    Ptr<QueueDisc> disc = tch.Install(dev).Get(0);
    if (q == "fq_codel")
    {
        DynamicCast<FqCoDelQueueDisc>(disc)->SetQuantum(p["quantum_bytes"].get<uint32_t>());
    }
    if (q == "red" && p["adaptive"].get<bool>())
    {
        // Floyd, Gummadi & Shenker 2001's max_p adaptation every interval.
        disc->SetAttribute("AdaptMaxP", BooleanValue(true));
        disc->SetAttribute("Interval", TimeValue(Seconds(p["interval_s"].get<double>())));
    }
    return disc;
}

json Column(const std::vector<double>& v)
{
    json a = json::array();
    for (double x : v)
    {
        if (std::isfinite(x))
            a.push_back(x);
        else
            a.push_back(nullptr);
    }
    return a;
}

double Quantile(std::vector<float>& v, double q)
{
    if (v.empty())
    {
        return 0.0;
    }
    size_t k = std::min(v.size() - 1, size_t(q * double(v.size())));
    std::nth_element(v.begin(), v.begin() + long(k), v.end());
    return v[k];
}

/// One side's statistics over the window, `<metric>_<tail>` (`link<k>`
/// for a chain's link, `reverse`), as the core's packet/ports.rs names them.
void SideSummary(json& summary, Side& q, const std::string& tail, double T)
{
    summary["utilization_" + tail] = q.bits_win / (q.C * T);
    summary["mean_queue_pkts_" + tail] = (q.area - q.area_warm) / T;
    summary["max_queue_pkts_" + tail] = double(q.max_waiting);
    double dsum = 0;
    for (float d : q.delays)
        dsum += d;
    summary["mean_queue_delay_s_" + tail] = q.delays.empty() ? 0.0 : dsum / q.delays.size();
    summary["p99_queue_delay_s_" + tail] = Quantile(q.delays, 0.99);
    summary["arrivals_" + tail] = double(q.arrivals_win);
    summary["departures_" + tail] = double(q.departures_win);
    summary["drops_" + tail] = double(q.drops_win);
    summary["drop_rate_" + tail] = q.arrivals_win ? double(q.drops_win) / q.arrivals_win : 0.0;
}

/// The forward links together (the bottleneck alone without a chain):
/// their bits, arrivals, drops and queue integrals added up, their
/// capacities too (their utilization is then weighted by capacity), the
/// largest of their largest queues, and every packet's wait.
Side Together()
{
    Side all;
    for (const Side& h : R.hops)
    {
        all.C += h.C;
        all.bits_win += h.bits_win;
        all.arrivals_win += h.arrivals_win;
        all.drops_win += h.drops_win;
        all.area += h.area;
        all.area_warm += h.area_warm;
        all.max_waiting = std::max(all.max_waiting, h.max_waiting);
        all.delays.insert(all.delays.end(), h.delays.begin(), h.delays.end());
    }
    return all;
}

/// With two-way traffic, the reverse link's statistics over the window
/// (`<metric>_reverse`) and the forward senders' ACK inter-arrival times
/// (as the core's packet/mod.rs, TwoWay::summary).
void TwoWaySummary(json& summary, double T)
{
    SideSummary(summary, R.rev, "reverse", T);
    double n = double(R.ack_gaps.size()), sum = 0, sq = 0;
    for (float g : R.ack_gaps)
    {
        sum += g;
        sq += double(g) * g;
    }
    // No gap (fewer than two ACKs at every sender in the window): each
    // measure 0, as the core's.
    double mean = n > 0 ? sum / n : 0.0;
    double sd = n > 0 ? std::sqrt(std::max(sq / n - mean * mean, 0.0)) : 0.0;
    summary["ack_gap_mean_s"] = mean;
    summary["ack_gap_p50_s"] = Quantile(R.ack_gaps, 0.5);
    summary["ack_gap_cv"] = mean > 0 ? sd / mean : 0.0;
    summary["ack_compression"] = n > 0 ? double(R.ack_compressed) / n : 0.0;
    summary["ack_drops"] = double(R.ack_drops_win);
}

json Results()
{
    for (Side* q : Sides())
        Integrate(*q);
    TickFlows();
    CloseEvent();
    double T = R.duration - R.warmup;
    json summary;
    Side all = Together();
    double util = all.bits_win / (all.C * T);
    summary["utilization"] = util;
    summary["throughput_bps"] = util * all.C;
    summary["drop_rate"] = all.arrivals_win ? double(all.drops_win) / all.arrivals_win : 0.0;
    summary["mean_queue_pkts"] = (all.area - all.area_warm) / T;
    summary["max_queue_pkts"] = double(all.max_waiting);
    double dsum = 0;
    for (float d : all.delays)
        dsum += d;
    summary["mean_queue_delay_s"] = all.delays.empty() ? 0.0 : dsum / all.delays.size();
    summary["p50_queue_delay_s"] = Quantile(all.delays, 0.5);
    summary["p99_queue_delay_s"] = Quantile(all.delays, 0.99);
    if (R.hops.size() > 1)
    {
        for (size_t k = 0; k < R.hops.size(); k++)
            SideSummary(summary, R.hops[k], "link" + std::to_string(k), T);
    }
    summary["congestion_events"] = double(R.ev_time.size());
    double sync = 0;
    for (double x : R.ev_frac)
        sync += x;
    summary["sync_mean"] = R.ev_frac.empty() ? 0.0 : sync / R.ev_frac.size();
    summary["background_drops"] = double(R.bg_drops_win);
    summary["ecn_marks"] = double(R.marks_win);
    summary["active_flows_mean"] = R.active_area / T;
    summary["long_flows_mean"] = R.long_area / T;
    summary["flows_completed"] = double(R.completed_win);
    summary["flows_arrived"] = double(R.arrived_win);
    summary["flows_refused"] = double(R.refused);
    summary["overload"] = R.refused > 0 ? 1.0 : 0.0;
    summary["active_flows_max"] = double(R.active_max);
    summary["capacity_bps"] = all.C;
    summary["packets_dropped"] = double(R.drops_total);
    summary["packets_delivered"] = double(R.delivered);
    summary["events"] = double(Simulator::GetEventCount());
    summary["max_cwnd_step_pkts"] = R.max_cwnd_step;

    std::vector<std::string> names = {
        "flow", "group", "rtt_s", "goodput_bps", "delivered_pkts", "sent_pkts",
        "retransmits", "timeouts", "recoveries", "drops", "loss_rate", "size_pkts",
        "start_s", "end_s", "fct_s", "bytes", "throughput_bps", "finished",
        "left_slow_start", "large", "queued_pkts", "mean_queue_delay_s", "jitter_s",
        "final_cwnd_pkts"};
    std::map<std::string, std::vector<double>> cols;
    double goodput = 0, goodput_reverse = 0, sent_total = 0, timeouts = 0;
    std::vector<double> fair;
    std::map<uint32_t, double> group_goodput;
    double large = R.s["output"]["large_flow_bytes"].get<double>();
    for (const Flow& f : R.flows)
    {
        if (f.finite && f.start < R.warmup)
        {
            continue;
        }
        double scale = double(f.mss) / f.payload;
        double bytes, rate, sent, retx, touts, recs, drops;
        if (f.finite)
        {
            bytes = double(f.rx) * scale;
            double end = f.done ? f.end : R.duration;
            rate = end > f.start ? bytes * 8.0 / (end - f.start) : NaN;
            sent = f.sent;
            retx = f.retx;
            touts = f.timeouts;
            recs = f.recoveries;
            drops = f.drops;
        }
        else
        {
            // As the packet engine's flows table (packet/collect.rs): goodput
            // and drops over the window, the sender's counters over the run.
            bytes = double(f.rx - f.rx_warm) * scale;
            rate = bytes * 8.0 / T;
            sent = double(f.sent);
            retx = double(f.retx);
            touts = double(f.timeouts);
            recs = double(f.recoveries);
            drops = double(f.drops - f.drops_warm);
            if (!Reverse(f.group))
            {
                fair.push_back(rate);
            }
        }
        double window_rate =
            f.finite ? double(f.rx - std::min(f.rx, f.rx_warm)) * scale * 8.0 / T : rate;
        (Reverse(f.group) ? goodput_reverse : goodput) += window_rate;
        group_goodput[f.group] += f.finite ? 0.0 : rate;
        sent_total += sent;
        timeouts += touts;
        cols["flow"].push_back(f.id);
        cols["group"].push_back(f.group);
        cols["rtt_s"].push_back(f.rtt);
        cols["goodput_bps"].push_back(rate);
        cols["delivered_pkts"].push_back(double(f.rx) / f.payload);
        cols["sent_pkts"].push_back(sent);
        cols["retransmits"].push_back(retx);
        cols["timeouts"].push_back(touts);
        cols["recoveries"].push_back(recs);
        cols["drops"].push_back(drops);
        double sent_span = f.finite ? sent : double(f.sent - f.sent_warm);
        cols["loss_rate"].push_back(sent_span > 0 ? drops / sent_span : 0.0);
        cols["size_pkts"].push_back(f.finite ? double(f.size_pkts) : NaN);
        cols["start_s"].push_back(f.start);
        cols["end_s"].push_back(f.done ? f.end : NaN);
        cols["fct_s"].push_back(f.done ? f.end - f.start : NaN);
        cols["bytes"].push_back(bytes);
        cols["throughput_bps"].push_back(rate);
        cols["finished"].push_back(f.done ? 1.0 : 0.0);
        cols["left_slow_start"].push_back(f.long_ ? 1.0 : 0.0);
        cols["large"].push_back(!f.finite || double(f.size_pkts) * f.mss > large ? 1.0 : 0.0);
        cols["queued_pkts"].push_back(double(f.queued));
        cols["mean_queue_delay_s"].push_back(f.queued ? f.qsum / f.queued : 0.0);
        cols["jitter_s"].push_back(f.queued > 1 ? f.jsum / (f.queued - 1) : 0.0);
        cols["final_cwnd_pkts"].push_back(double(f.cwnd) / f.payload);
    }
    summary["goodput_bps"] = goodput;
    if (R.two_way)
    {
        TwoWaySummary(summary, T);
    }
    bool reverse_groups = false;
    for (uint32_t g = 0; g < R.s["flows"].size(); g++)
        reverse_groups = reverse_groups || Reverse(g);
    if (reverse_groups)
    {
        summary["goodput_bps_reverse"] = goodput_reverse;
    }
    for (auto& [g, v] : group_goodput)
    {
        summary["goodput_bps_group" + std::to_string(g)] = v;
    }
    double s1 = 0, s2 = 0;
    for (double x : fair)
    {
        s1 += x;
        s2 += x * x;
    }
    summary["jain_index"] = s2 > 0 ? s1 * s1 / (fair.size() * s2) : 1.0;
    summary["timeouts"] = timeouts;
    double sent_life = 0;
    for (const Flow& f : R.flows)
        sent_life += f.sent;
    summary["packets_sent"] = sent_life;

    json flows;
    for (const auto& n : names)
    {
        flows[n] = Column(cols[n]);
    }
    json ts;
    ts["time_s"] = Column(R.ts_time);
    ts["utilization"] = Column(R.ts_util);
    std::vector<double> queue(R.ts_time.size(), 0.0);
    for (size_t k = 0; k < R.hops.size(); k++)
    {
        for (size_t i = 0; i < queue.size(); i++)
            queue[i] += R.hops[k].ts_queue[i];
        if (R.hops.size() > 1)
            ts["queue_pkts_link" + std::to_string(k)] = Column(R.hops[k].ts_queue);
    }
    ts["queue_pkts"] = Column(queue);
    if (R.two_way)
    {
        ts["queue_pkts_reverse"] = Column(R.rev.ts_queue);
    }
    ts["drops"] = Column(R.ts_drops);
    ts["active_flows"] = Column(R.ts_active);
    ts["long_flows"] = Column(R.ts_long);
    size_t k = 0;
    for (const Flow& f : R.flows)
    {
        if (!f.finite && k < R.ts_cwnd.size())
        {
            ts["cwnd_flow" + std::to_string(f.id)] = Column(R.ts_cwnd[k++]);
        }
    }
    json ev;
    ev["time_s"] = Column(R.ev_time);
    ev["fraction"] = Column(R.ev_frac);
    json out;
    out["summary"] = summary;
    out["flows"] = flows;
    out["timeseries"] = ts;
    out["congestion_events"] = ev;
    return out;
}

/// A new sender host for a flow of group `g` whose RTT is `rtt`: its node
/// and access link to the left router (a reverse group's: the right), with
/// its default route. A host made
/// during the run (an open-loop arrival) is initialized by ns-3 in an event
/// at the same time, before the flow's start.
uint32_t AddHost(const json& g, double rtt)
{
    uint32_t mtu = R.mtu;
    Host h;
    h.node = CreateObject<Node>();
    InternetStackHelper().Install(h.node);
    double fast = R.fast;
    double rate = g["access_rate_bps"].is_null() ? fast : g["access_rate_bps"].get<double>();
    std::string q = g["access_rate_bps"].is_null()
                        ? R.big
                        : std::to_string(g["access_buffer_pkts"].get<uint64_t>()) + "p";
    uint32_t mss = g["mss_bytes"].get<uint32_t>();
    // A reverse group's senders are behind the right router; on a chain a
    // group's behind the router before its first link.
    Ptr<Node> router = g.value("reverse", false) ? R.right
                       : g.contains("links")     ? R.routers[g["links"][0].get<size_t>()]
                                                 : R.left;
    NetDeviceContainer d =
        Link(h.node, router, rate * (mss + PPP) / mss, AccessDelay(g, rtt), q, mtu);
    d.Get(1)->SetAttribute("DataRate", StringValue(Bps(fast)));
    Ipv4InterfaceContainer c = Assign(d);
    h.addr = c.GetAddress(0);
    h.channel = DynamicCast<PointToPointChannel>(d.Get(0)->GetChannel());
    DefaultRoute(h.node, c.GetAddress(1), 1);
    R.hosts.push_back(h);
    return uint32_t(R.hosts.size() - 1);
}

/// A link's reference packet size, bytes (its data rate carries the PPP
/// header on top, so that IP packets of this size leave at its capacity).
double PacketSize(const json& link)
{
    return link["packet_size_bytes"].get<double>();
}

/// The device queue of a link's sending end: its buffer for droptail
/// (bytes mode: plus the PPP header of each packet that fits), else one
/// packet beside the queue disc (see the top of this file).
std::string DeviceQueue(const json& link)
{
    uint64_t B = link["buffer_pkts"].get<uint64_t>();
    if (link["qdisc"] != "droptail")
        return "1p";
    if (link["buffer_mode"] == "bytes")
        return std::to_string(link["buffer_bytes"].get<uint64_t>() + PPP * B) + "B";
    return std::to_string(B) + "p";
}

/// Measure the queue of device `dev` (the sending end of `link`) as side
/// `q`: its queue disc's traces, or its device queue's and the node's
/// traffic-control drops (droptail), and the start of each transmission.
void Watch(Ptr<NetDevice> dev, const json& link, Side* q)
{
    Ptr<QueueDisc> disc = InstallDisc(dev, link);
    if (disc)
    {
        disc->TraceConnectWithoutContext("Enqueue", MakeBoundCallback(&DiscEnqueue, q));
        disc->TraceConnectWithoutContext("DropBeforeEnqueue", MakeBoundCallback(&DiscDropBefore, q));
        disc->TraceConnectWithoutContext("DropAfterDequeue", MakeBoundCallback(&DiscDropAfter, q));
        disc->TraceConnectWithoutContext("Mark", MakeBoundCallback(&DiscMark, q));
    }
    else
    {
        Ptr<Queue<Packet>> dq = dev->GetObject<PointToPointNetDevice>()->GetQueue();
        dq->TraceConnectWithoutContext("Enqueue", MakeBoundCallback(&Arrive, q));
        dq->TraceConnectWithoutContext("Drop", MakeBoundCallback(&DeviceQueueDrop, q));
        dev->GetNode()->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
            "TcDrop", MakeBoundCallback(&TcDrop, q));
    }
    dev->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&TxBegin, q));
}

void Build()
{
    const json& s = R.s;
    const json& link = s["link"];
    R.warmup = s["warmup_s"].get<double>();
    R.duration = s["duration_s"].get<double>();
    R.interval = s["output"]["interval_s"].get<double>();
    R.sync_window = link["bdp_rtt_s"].get<double>();
    R.two_way = s.contains("reverse");
    R.fast = s["ns3"]["fast_bps"].get<double>(); // bufsim.ns3.fast_rate_bps
    R.uniform = CreateObject<UniformRandomVariable>();
    R.normal = CreateObject<NormalRandomVariable>();
    const json& groups = s["flows"];
    R.group_active.assign(groups.size(), 0);

    for (const json& g : groups)
        R.mtu = std::max(R.mtu, g["mss_bytes"].get<uint32_t>());
    for (const json& b : s["background"])
        R.mtu = std::max(R.mtu, b["packet_size_bytes"].get<uint32_t>());
    uint32_t mtu = R.mtu;
    R.idle.resize(groups.size());

    InternetStackHelper stack;
    // The forward links: the bottleneck, or a chain's links in order, link
    // k from router k to router k + 1. Each return direction is fast (ACKs
    // uncongested), or with two-way traffic the reverse link.
    const json links = s.contains("links") ? s["links"] : json::array({link});
    size_t n = links.size();
    for (size_t k = 0; k <= n; k++)
        R.routers.push_back(CreateObject<Node>());
    R.left = R.routers.front();
    R.right = R.routers.back();
    Ptr<Node> right = R.right;
    for (const Ptr<Node>& r : R.routers)
        stack.Install(r);
    R.hops.resize(n); // sized before Watch binds each side's address
    for (const json& g : groups)
    {
        R.reverse_group.push_back(g.value("reverse", false));
        size_t last = g.contains("links") ? g["links"].back().get<size_t>() : 0;
        R.last_side.push_back(R.reverse_group.back() ? &R.rev : &R.hops[last]);
    }
    for (size_t k = 0; k < n; k++)
    {
        const json& lk = links[k];
        double c = lk["capacity_bps"].get<double>();
        R.hop_delay.push_back(lk["delay_s"].get<double>());
        NetDeviceContainer hop = Link(R.routers[k], R.routers[k + 1],
                                      c * (PacketSize(lk) + PPP) / PacketSize(lk),
                                      R.hop_delay[k], DeviceQueue(lk), mtu);
        if (k == 0)
        {
            DataRateValue rate;
            hop.Get(0)->GetAttribute("DataRate", rate);
            R.fwd_rate = rate.Get();
        }
        R.hops[k].C = c;
        R.hop_addr.push_back(Assign(hop));
        R.hop_dev.push_back(hop);
        Watch(hop.Get(0), lk, &R.hops[k]);
        if (!R.two_way)
        {
            hop.Get(1)->SetAttribute("DataRate", StringValue(Bps(R.fast)));
        }
    }
    // Routes: the first router sends everything on to the second; every
    // other router back towards the first (where the senders are), and a
    // receiver further on is reached by host routes (AddRouteRight).
    DefaultRoute(R.routers[0], R.hop_addr[0].GetAddress(1), Iface(R.hop_dev[0].Get(0)));
    for (size_t k = 1; k <= n; k++)
        DefaultRoute(R.routers[k], R.hop_addr[k - 1].GetAddress(0), Iface(R.hop_dev[k - 1].Get(1)));
    if (R.two_way)
    {
        const json& rl = s["reverse"]["link"];
        R.rev.C = rl["capacity_bps"].get<double>();
        Ptr<NetDevice> rdev = R.hop_dev[0].Get(1);
        rdev->SetAttribute(
            "DataRate", StringValue(Bps(R.rev.C * (PacketSize(rl) + PPP) / PacketSize(rl))));
        rdev->GetObject<PointToPointNetDevice>()->GetQueue()->SetAttribute(
            "MaxSize", StringValue(DeviceQueue(rl)));
        Watch(rdev, rl, &R.rev);
    }

    // Receivers, one node per group with one listening socket.
    Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(false));
    for (uint32_t gi = 0; gi < groups.size(); gi++)
    {
        const json& g = groups[gi];
        Ptr<Node> node = CreateObject<Node>();
        stack.Install(node);
        // A reverse group's receiver is behind the left router; on a chain
        // a group's after its last link.
        size_t at = Reverse(gi)             ? 0
                    : g.contains("links") ? g["links"].back().get<size_t>() + 1
                                          : n;
        Ipv4InterfaceContainer c =
            Assign(Link(R.routers[at], node, R.fast, 0.0, R.big, mtu));
        DefaultRoute(node, c.GetAddress(0), 1);
        AddRouteRight(c.GetAddress(1), at);
        R.receivers.push_back(node);
        R.rx_addr.push_back(c.GetAddress(1));
        for (const auto& [name, value] : s["ns3"]["attributes"][gi].items())
        {
            Config::SetDefault(name, StringValue(value.get<std::string>()));
        }
        Ptr<TcpL4Protocol> tcp = node->GetObject<TcpL4Protocol>();
        tcp->SetAttribute("SocketType", TypeIdValue(Variant(g["cc"]["variant"])));
        tcp->SetAttribute("RecoveryType", TypeIdValue(Recovery(g)));
        Ptr<Socket> listen = Socket::CreateSocket(node, TcpSocketFactory::GetTypeId());
        ConfigureSocket(listen, g);
        listen->Bind(InetSocketAddress(Ipv4Address::GetAny(), Port(gi)));
        listen->Listen();
        listen->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                  MakeCallback(&OnAccept));
    }

    // Flows: persistent ones first (in group order), then finite transfers
    // (sizes drawn in flow order), the packet engine's flow ids; open- and
    // closed-loop transfers are added as they arrive.
    for (int pass = 0; pass < 2; pass++)
    {
        for (uint32_t gi = 0; gi < groups.size(); gi++)
        {
            const json& g = groups[gi];
            std::string kind = g["kind"];
            if (kind != (pass == 0 ? "persistent" : "finite"))
                continue;
            for (uint32_t k = 0; k < g["count"].get<uint32_t>(); k++)
            {
                Flow f;
                f.id = uint32_t(R.flows.size());
                f.group = gi;
                f.rtt = g["rtts_s"][k].get<double>();
                f.start = g["starts_s"][k].get<double>();
                f.finite = kind == "finite";
                f.mss = g["mss_bytes"].get<uint32_t>();
                f.payload = f.mss - HEADERS;
                if (f.finite)
                {
                    f.size_pkts = DrawSize(g["size"]);
                    f.total = f.size_pkts * f.payload;
                }
                f.host = AddHost(g, f.rtt);
                R.flows.push_back(f);
                Simulator::Schedule(Seconds(f.start), &Start, f.id);
            }
        }
    }
    // Open-loop arrival processes; closed-loop users, each starting with a
    // think time (traffic/ in the core).
    for (uint32_t gi = 0; gi < groups.size(); gi++)
    {
        const json& g = groups[gi];
        if (g["kind"] == "open")
        {
            double gap = -std::log(1.0 - R.uniform->GetValue()) / g["arrival_rate_per_s"].get<double>();
            Simulator::Schedule(Seconds(g["begin_s"].get<double>() + gap), &Arrival, gi);
        }
        if (g["kind"] != "closed")
            continue;
        for (uint32_t k = 0; k < g["users"].get<uint32_t>(); k++)
        {
            uint32_t u = uint32_t(R.user_host.size());
            R.user_host.push_back(AddHost(g, DrawRtt(g["rtt_draw"])));
            R.user_group.push_back(gi);
            double at = g["begin_s"].get<double>() + DrawThink(g["think"]);
            Simulator::Schedule(Seconds(at), &Wake, u);
        }
    }

    // Poisson background: UDP datagrams of packet_size on the wire
    // (20 bytes of IPv4, 8 of UDP) at exponential gaps of mean size / rate.
    for (size_t b = 0; b < s["background"].size(); b++)
    {
        const json& bj = s["background"][b];
        // On a chain a source crosses one link: from its router to the next.
        size_t at = bj.contains("links") ? bj["links"][0].get<size_t>() : 0;
        Ptr<Node> node = CreateObject<Node>();
        stack.Install(node);
        Ipv4InterfaceContainer c = Assign(Link(node, R.routers[at], R.fast, 0.0, R.big, mtu));
        DefaultRoute(node, c.GetAddress(1), 1);
        Background bg;
        uint32_t size = bj["packet_size_bytes"].get<uint32_t>();
        bg.payload = size - 28;
        bg.gap = CreateObject<ExponentialRandomVariable>();
        bg.gap->SetAttribute("Mean", DoubleValue(size * 8.0 / bj["rate_bps"].get<double>()));
        bg.sock = Socket::CreateSocket(node, UdpSocketFactory::GetTypeId());
        // Its sink: the first receiver (the one bottleneck), or on a chain
        // or with two-way traffic (whose first receiver may be a reverse
        // group's, behind the left router) a node of its own after its link.
        Ptr<Node> sink_node = R.receivers[0];
        Ipv4Address sink_addr = R.rx_addr[0];
        if (s.contains("links") || R.two_way || R.receivers.empty())
        {
            sink_node = CreateObject<Node>();
            stack.Install(sink_node);
            Ipv4InterfaceContainer sc =
                Assign(Link(R.routers[at + 1], sink_node, R.fast, 0.0, R.big, mtu));
            DefaultRoute(sink_node, sc.GetAddress(0), 1);
            sink_addr = sc.GetAddress(1);
            AddRouteRight(sink_addr, at + 1);
        }
        Ptr<Socket> sink = Socket::CreateSocket(sink_node, UdpSocketFactory::GetTypeId());
        sink->Bind(InetSocketAddress(Ipv4Address::GetAny(), uint16_t(9 + b)));
        bg.sock->Connect(InetSocketAddress(sink_addr, uint16_t(9 + b)));
        BG.push_back(bg);
        Simulator::Schedule(Seconds(BG.back().gap->GetValue()), &SendBackground, b);
    }

    size_t persistent = 0;
    for (const Flow& f : R.flows)
        persistent += f.finite ? 0 : 1;
    if (s["output"]["cwnd"].get<bool>())
        R.ts_cwnd.resize(persistent);
    Simulator::Schedule(Seconds(R.warmup), &WarmupEnd);
    Simulator::Schedule(Seconds(R.interval), &Sample);
    Simulator::Schedule(Seconds(0), &Progress, std::max(R.duration / 100.0, 0.01));
}

json Defaults()
{
    json d;
    auto attrs = [&](const std::string& name) {
        TypeId t = TypeId::LookupByName(name);
        json a;
        for (uint32_t k = 0; k < t.GetAttributeN(); k++)
        {
            TypeId::AttributeInformation i = t.GetAttribute(k);
            a[i.name] = i.initialValue->SerializeToString(i.checker);
        }
        d[name] = a;
    };
    for (const char* n : {"ns3::TcpSocket", "ns3::TcpSocketBase", "ns3::TcpL4Protocol",
                          "ns3::TcpCubic", "ns3::TcpScalable", "ns3::TcpHtcp", "ns3::TcpDctcp",
                          "ns3::TcpBbr", "ns3::RedQueueDisc", "ns3::CoDelQueueDisc",
                          "ns3::PieQueueDisc", "ns3::FqCoDelQueueDisc", "ns3::TcpPrrRecovery"})
    {
        attrs(n);
    }
    d["version"] = "3.37";
    return d;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc == 2 && std::string(argv[1]) == "--defaults")
    {
        std::cout << Defaults().dump(1) << std::endl;
        return 0;
    }
    if (argc != 3)
    {
        std::cerr << "usage: bufsim-ns3 SCENARIO.json OUT.json | --defaults\n";
        return 2;
    }
    std::ifstream in(argv[1]);
    R.s = json::parse(in);
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(R.s["seed"].get<uint64_t>());
    Build();
    // Just past the end, so the last sample (at duration) is taken.
    Simulator::Stop(Seconds(R.duration) + NanoSeconds(1));
    Simulator::Run();
    json out = Results();
    Simulator::Destroy();
    std::ofstream o(argv[2]);
    o << out.dump();
    return 0;
}
