import { objectIdAt } from '@/lib/domain/object-id';
import type { Prng } from './seed-prng';

/**
 * The fictional organization behind the demo events: projects, clusters,
 * hosts, people and API keys that recur across events, so the data reads like
 * one real organization rather than noise. Built once per (seed, org).
 */

export type SeedHost = {
  hostId: string;
  hostname: string;
  port: number;
  replicaSetName: string;
  /** Set on the members of a sharded cluster's shards. */
  shardName?: string;
};

export type SeedDatabase = { name: string; collections: readonly string[] };

export type SeedCluster = {
  clusterId: string;
  clusterName: string;
  groupId: string;
  sharded: boolean;
  hosts: readonly SeedHost[];
  databases: readonly SeedDatabase[];
};

export type SeedProject = {
  groupId: string;
  name: string;
  clusters: readonly SeedCluster[];
  alertConfigIds: readonly string[];
};

export type SeedUser = {
  userId: string;
  username: string;
  /** Where this person works from; the first one dominates. */
  addresses: readonly string[];
};

export type SeedApiKey = {
  apiKeyId: string;
  publicKey: string;
  description: string;
  addresses: readonly string[];
  accessList: readonly string[];
};

export type SeedWorld = {
  orgId: string;
  orgName: string;
  domain: string;
  projects: readonly SeedProject[];
  clusters: readonly SeedCluster[];
  users: readonly SeedUser[];
  /** The operator's staff (isGlobalAdmin: true), rare actors. */
  operators: readonly SeedUser[];
  apiKeys: readonly SeedApiKey[];
  /** People invited by email who may not have joined (yet). */
  invitees: readonly string[];
  teamIds: readonly string[];
  resourcePolicyIds: readonly string[];
};

const PROJECT_NAMES = [
  'payments-prod',
  'payments-staging',
  'analytics',
  'mobile-backend',
  'search',
  'internal-tools',
  'ml-platform',
  'customer-portal',
  'data-lake',
  'iot-ingest',
  'marketing-site',
  'billing-service',
  'identity',
  'logistics',
];

const CLUSTER_NAMES = [
  'Cluster0',
  'prod-main',
  'analytics',
  'events-store',
  'search-cluster',
  'sessions',
  'reporting',
  'archive',
  'orders',
  'catalog',
];

const DATABASES: readonly SeedDatabase[] = [
  { name: 'sales', collections: ['orders', 'customers', 'invoices', 'refunds'] },
  { name: 'inventory', collections: ['items', 'warehouses', 'stock_movements'] },
  { name: 'users', collections: ['profiles', 'sessions', 'preferences', 'audit'] },
  { name: 'analytics', collections: ['pageviews', 'daily_rollups', 'funnels'] },
  { name: 'app', collections: ['accounts', 'notifications', 'feature_flags', 'jobs'] },
  { name: 'sample_mflix', collections: ['movies', 'comments', 'theaters', 'users'] },
  { name: 'sample_airbnb', collections: ['listingsAndReviews'] },
  { name: 'telemetry', collections: ['readings', 'devices', 'alerts'] },
];

const FIRST_NAMES = [
  'alice',
  'bruno',
  'chen',
  'daniela',
  'emeka',
  'fatima',
  'gustav',
  'hana',
  'ivan',
  'jasmine',
  'kwame',
  'lena',
  'mateo',
  'nadia',
  'oscar',
  'priya',
  'quentin',
  'rosa',
  'sven',
  'tomoko',
  'umar',
  'valeria',
  'wei',
  'yusuf',
  'zoe',
];

const LAST_NAMES = [
  'anderson',
  'bianchi',
  'costa',
  'dubois',
  'eriksen',
  'fernandez',
  'garcia',
  'hoffmann',
  'ito',
  'jensen',
  'kowalski',
  'larsen',
  'moreau',
  'nakamura',
  'okafor',
  'patel',
  'rossi',
  'schmidt',
  'tanaka',
  'usman',
  'varga',
  'wong',
];

const COMPANY_WORDS = ['acme', 'globex', 'initech', 'umbrella', 'hooli', 'vandelay', 'stark'];
const COMPANY_SUFFIXES = ['corp', 'labs', 'systems', 'group', 'io', 'data'];

const KEY_PURPOSES = [
  'terraform-prod',
  'terraform-staging',
  'ci-pipeline',
  'monitoring-exporter',
  'backup-automation',
  'atlas-operator',
  'billing-report',
  'data-sync',
  'incident-bot',
  'cost-dashboard',
  'ansible',
  'grafana',
  'migration-tool',
  'audit-collector',
  'local-dev',
];

export function buildWorld(
  prng: Prng,
  options: { orgId: string; orgName?: string; epoch: number },
): SeedWorld {
  const company = `${prng.pick(COMPANY_WORDS)}-${prng.pick(COMPANY_SUFFIXES)}`;
  const domain = `${company}.com`;
  const orgName =
    options.orgName ??
    company
      .split('-')
      .map((w) => w[0]!.toUpperCase() + w.slice(1))
      .join(' ');
  // Everything that exists before the first event was created some time before it.
  const before = (minDays: number, maxDays: number) =>
    options.epoch - prng.range(minDays * 24, maxDays * 24) * 3_600_000;
  const newId = (minDays = 30, maxDays = 900) => objectIdAt(before(minDays, maxDays), prng.hex(16));

  const projects: SeedProject[] = [];
  const projectNames = shuffled(prng, PROJECT_NAMES).slice(0, prng.range(5, 12));
  for (const name of projectNames) {
    const groupId = newId(120, 1200);
    const projectTag = prng.alnum(5);
    const clusterNames = shuffled(prng, CLUSTER_NAMES).slice(0, prng.range(1, 4));
    const clusters = clusterNames.map((clusterName) =>
      buildCluster(prng, { groupId, clusterName, projectTag, clusterId: newId(60, 900) }),
    );
    const alertConfigIds = Array.from({ length: prng.range(3, 8) }, () => newId(30, 600));
    projects.push({ groupId, name, clusters, alertConfigIds });
  }

  const people = new Set<string>();
  const person = (): string => {
    for (;;) {
      const first = prng.pick(FIRST_NAMES);
      const last = prng.pick(LAST_NAMES);
      const name = prng.chance(0.15) ? `${first[0]}${last}` : `${first}.${last}`;
      if (!people.has(name)) {
        people.add(name);
        return name;
      }
    }
  };
  const users: SeedUser[] = Array.from({ length: prng.range(20, 60) }, () => ({
    userId: newId(1, 1000),
    username: `${person()}@${prng.chance(0.92) ? domain : prng.pick(['gmail.com', 'outlook.com', 'contractor.dev'])}`,
    addresses: Array.from({ length: prng.range(1, 3) }, () => randomAddress(prng)),
  }));
  const operators: SeedUser[] = Array.from({ length: prng.range(2, 3) }, () => ({
    userId: newId(365, 2000),
    username: `${person()}@mongodb.com`,
    addresses: [randomIpv4(prng)],
  }));

  const usedKeys = new Set<string>();
  const apiKeys: SeedApiKey[] = shuffled(prng, KEY_PURPOSES)
    .slice(0, prng.range(5, 15))
    .map((description) => {
      let publicKey = prng.letters(8);
      while (usedKeys.has(publicKey)) publicKey = prng.letters(8);
      usedKeys.add(publicKey);
      const addresses = Array.from({ length: prng.range(1, 2) }, () => randomIpv4(prng));
      const accessList = [
        ...addresses,
        ...Array.from(
          { length: prng.range(0, 2) },
          () => `${randomIpv4(prng)}/${prng.pick([24, 28, 32])}`,
        ),
      ];
      return { apiKeyId: newId(1, 700), publicKey, description, addresses, accessList };
    });

  return {
    orgId: options.orgId,
    orgName,
    domain,
    projects,
    clusters: projects.flatMap((p) => p.clusters),
    users,
    operators,
    apiKeys,
    invitees: Array.from({ length: prng.range(10, 30) }, () => `${person()}@${domain}`),
    teamIds: Array.from({ length: prng.range(3, 8) }, () => newId(30, 900)),
    resourcePolicyIds: Array.from({ length: prng.range(2, 5) }, () => newId(10, 300)),
  };
}

function buildCluster(
  prng: Prng,
  options: { groupId: string; clusterName: string; projectTag: string; clusterId: string },
): SeedCluster {
  const tag = prng.alnum(6);
  const sharded = prng.chance(0.25);
  const shardCount = sharded ? prng.range(2, 4) : 1;
  const hosts: SeedHost[] = [];
  for (let shard = 0; shard < shardCount; shard++) {
    const replicaSetName = `atlas-${tag}-shard-${shard}`;
    for (let member = 0; member < 3; member++) {
      hosts.push({
        hostId: prng.hex(32),
        hostname: `atlas-${tag}-shard-${pad2(shard)}-${pad2(member)}.${options.projectTag}.mongodb.net`,
        port: 27017,
        replicaSetName,
        ...(sharded ? { shardName: replicaSetName } : {}),
      });
    }
  }
  if (sharded) {
    for (let member = 0; member < 3; member++) {
      hosts.push({
        hostId: prng.hex(32),
        hostname: `atlas-${tag}-config-00-${pad2(member)}.${options.projectTag}.mongodb.net`,
        port: 27017,
        replicaSetName: `atlas-${tag}-config-0`,
      });
    }
  }
  const databases = shuffled(prng, DATABASES).slice(0, prng.range(2, 4));
  return {
    clusterId: options.clusterId,
    clusterName: options.clusterName,
    groupId: options.groupId,
    sharded,
    hosts,
    databases,
  };
}

/** A public-looking IPv4 address (never a private or reserved range). */
export function randomIpv4(prng: Prng): string {
  for (;;) {
    const a = prng.range(11, 223);
    const b = prng.int(256);
    if (a === 100 || a === 127 || a === 169 || (a === 172 && b >= 16 && b < 32)) continue;
    if (a === 192 && b === 168) continue;
    return `${a}.${b}.${prng.int(256)}.${prng.range(1, 254)}`;
  }
}

/** An IPv6 address written out in full, as the service prints it. */
function randomIpv6(prng: Prng): string {
  const groups = [prng.pick(['2001', '2a02', '2600', '2a01', '2406'])];
  for (let i = 0; i < 7; i++) groups.push(prng.int(0x10000).toString(16));
  return groups.join(':');
}

function randomAddress(prng: Prng): string {
  return prng.chance(0.2) ? randomIpv6(prng) : randomIpv4(prng);
}

function shuffled<T>(prng: Prng, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = prng.int(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function pad2(n: number): string {
  return n.toString().padStart(2, '0');
}
