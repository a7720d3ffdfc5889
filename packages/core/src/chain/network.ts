import { setMaxListeners } from 'node:events';
import { err, type Result } from 'neverthrow';
import { describeNodeError, type NodeCallError, type TronNode, type TronNodeClient } from './client.js';
import type { CallWindow, NodeAnswers, NodeRound } from './collect.js';
import { forCaller } from './for-caller.js';

/**
 * Which TRON network a node serves. A URL says nothing about it: a Nile or Shasta testnet node (a
 * staging `.env` copied to production) answers every call like a mainnet node, and a testnet payment
 * would be a mainnet merchant's CLEAR. So no answer of a node is used until the node has shown it
 * serves the expected network: block 0's id (the genesis, `getblockbynum {"num": 0}`), which no
 * two networks share. java-tron keeps block 0 in lite databases too (its DbLite tool copies the
 * genesis block); a node that answers `{}` for it is asked `getnodeinfo` instead, whose
 * `configNodeInfo.p2pVersion` is the node's `node.p2p.version`, the network id java-tron's
 * handshake requires peers to share (mainnet 11111).
 */
export interface TronNetwork {
  /** For messages: `mainnet`, `nile`… */
  name: string;
  /** Block 0's `blockID` (64 hex). */
  genesisBlockId: string;
  /** `node.p2p.version`: the fallback for a node without block 0; without it, such a node cannot be verified. */
  p2pVersion?: number;
}

export const TRON_MAINNET: TronNetwork = {
  name: 'mainnet',
  genesisBlockId: '00000000000000001ebf88508a03865c71d452e25f4d51194196a1d22b6653dc',
  p2pVersion: 11111,
};
export const TRON_NILE: TronNetwork = {
  name: 'nile',
  genesisBlockId: '0000000000000000d698d4192c56cb6be724a558448e2684802de4d6cd8690dc',
  p2pVersion: 201910292,
};
export const TRON_SHASTA: TronNetwork = {
  name: 'shasta',
  genesisBlockId: '0000000000000000de1aa88295e1fcf982742f773e0419c5a9c134c994a9059e',
};

/** One network is one genesis block, whatever the object or name that describes it (hex in either case, as the verifier reads it). */
export const sameNetwork = (a: TronNetwork, b: TronNetwork): boolean =>
  a.genesisBlockId.toLowerCase() === b.genesisBlockId.toLowerCase();

/** The networks a message can name. */
const KNOWN: readonly TronNetwork[] = [TRON_MAINNET, TRON_NILE, TRON_SHASTA];

/** A node that serves another network than the expected one: its answers are not used. */
export interface WrongNetwork {
  node: TronNode;
  /** The expected network's name. */
  expected: string;
  /** What the node answered: its genesis block id, or its p2p version when it had no block 0. */
  found: { genesisBlockId: string } | { p2pVersion: string };
  /** For a log line: which node, what it serves, what was expected. */
  detail: string;
}

/** What is known of one node's network. `established` and `wrong_network` are final for the provider's life. */
export type NodeNetwork =
  | { status: 'established'; node: TronNode; network: string; via: 'genesis' | 'p2p_version' }
  | { status: 'wrong_network'; node: TronNode; mismatch: WrongNetwork }
  /** Not known yet (the node failed, timed out, or gave neither answer): tried again by a later check. */
  | { status: 'unverified'; node: TronNode; detail: string };

export type NodeNetworks = Record<TronNode, NodeNetwork>;

const NODES: readonly TronNode[] = ['full', 'solidity'];

export interface NetworkVerifierOptions {
  expected: TronNetwork;
  /** Upper bound of one verification (every attempt of its one or two calls), independent of any check. */
  budgetMs: number;
}

/**
 * Establishes which network each node serves, once: a decided node (`established` or
 * `wrong_network`) is never asked again; a verification is shared by every check that needs it
 * meanwhile, bounded by its own budget (not by the first caller's deadline), and one that could not
 * decide is started again by the next check that needs it.
 */
export class NetworkVerifier {
  private readonly decided = new Map<TronNode, NodeNetwork>();
  private readonly inflight = new Map<TronNode, Promise<NodeNetwork>>();
  /** Why the last verification of a node still undecided could not decide. */
  private readonly undecided = new Map<TronNode, NodeNetwork>();
  private readonly closing = new AbortController();

  constructor(
    private readonly client: TronNodeClient,
    private readonly options: NetworkVerifierOptions,
  ) {
    setMaxListeners(0, this.closing.signal);
  }

  /** Both nodes' networks when both are decided: what every check after the first finds, without waiting. */
  decidedBoth(): NodeNetworks | null {
    const full = this.decided.get('full');
    const solidity = this.decided.get('solidity');
    return full && solidity ? { full, solidity } : null;
  }

  /** Both nodes' networks as known now, without asking: a node not decided yet is `unverified`. */
  known(): NodeNetworks {
    const now = (node: TronNode): NodeNetwork =>
      this.decided.get(node) ??
      this.undecided.get(node) ?? { status: 'unverified', node, detail: `the ${node} node has not been asked yet` };
    return { full: now('full'), solidity: now('solidity') };
  }

  /**
   * Both nodes' networks as far as they are known by the window's deadline (or its signal): a
   * verification still running then is `unverified` for this caller, and goes on for the next.
   */
  async networks(window: CallWindow): Promise<NodeNetworks> {
    const [full, solidity] = await Promise.all(
      NODES.map((node) => {
        const late = `the ${node} node's network was not established within the check's time`;
        const fallback = (): NodeNetwork => ({ status: 'unverified', node, detail: late });
        return forCaller(this.networkOf(node), window, fallback, fallback);
      }),
    );
    return { full: full!, solidity: solidity! };
  }

  /** Both nodes' networks once their verifications end (each bounded by its own budget). */
  async verified(): Promise<NodeNetworks> {
    const [full, solidity] = await Promise.all(NODES.map((node) => this.networkOf(node)));
    return { full: full!, solidity: solidity! };
  }

  /** Ends the verifications still running (their nodes stay unverified). */
  close(): void {
    this.closing.abort();
  }

  /** The node's decided network, or the verification under way (started when none is). */
  private networkOf(node: TronNode): Promise<NodeNetwork> {
    const decided = this.decided.get(node);
    if (decided) return Promise.resolve(decided);
    let shared = this.inflight.get(node);
    if (!shared) {
      shared = this.verify(node)
        .then((network) => {
          if (network.status !== 'unverified') this.decided.set(node, network);
          else this.undecided.set(node, network);
          return network;
        })
        .finally(() => this.inflight.delete(node));
      this.inflight.set(node, shared);
    }
    return shared;
  }

  private async verify(node: TronNode): Promise<NodeNetwork> {
    const { signal } = this.closing;
    const deadline = performance.now() + this.options.budgetMs;
    const genesis = await this.client.getBlockId(node, 0, signal, deadline);
    if (genesis.isErr()) return unverified(node, genesis.error);
    if (genesis.value !== null) return this.judge(node, { genesisBlockId: genesis.value.blockID.toLowerCase() });
    const { p2pVersion } = this.options.expected;
    if (p2pVersion === undefined) {
      const detail = `the ${node} node has no block 0, and the expected network no p2p version to ask for instead`;
      return { status: 'unverified', node, detail };
    }
    const info = await this.client.getNodeInfo(node, signal, deadline);
    if (info.isErr()) return unverified(node, info.error);
    const found = info.value?.configNodeInfo?.p2pVersion;
    if (found === undefined) {
      return { status: 'unverified', node, detail: `the ${node} node answers neither block 0 nor its p2p version` };
    }
    return this.judge(node, { p2pVersion: String(found) });
  }

  private judge(node: TronNode, found: WrongNetwork['found']): NodeNetwork {
    const { expected } = this.options;
    const matches =
      'genesisBlockId' in found
        ? found.genesisBlockId === expected.genesisBlockId.toLowerCase()
        : found.p2pVersion === String(expected.p2pVersion);
    const via = 'genesisBlockId' in found ? 'genesis' : 'p2p_version';
    if (matches) return { status: 'established', node, network: expected.name, via };
    const mismatch = { node, expected: expected.name, found, detail: describeMismatch(node, found, expected) };
    return { status: 'wrong_network', node, mismatch };
  }
}

function describeMismatch(node: TronNode, found: WrongNetwork['found'], expected: TronNetwork): string {
  const named = (network: TronNetwork | undefined) => (network ? `TRON ${network.name}` : 'another network');
  const serves =
    'genesisBlockId' in found
      ? `${named(KNOWN.find((n) => n.genesisBlockId === found.genesisBlockId))} (genesis ${found.genesisBlockId})`
      : `${named(KNOWN.find((n) => String(n.p2pVersion) === found.p2pVersion))} (p2p version ${found.p2pVersion})`;
  const wanted =
    'genesisBlockId' in found ? `genesis ${expected.genesisBlockId}` : `p2p version ${expected.p2pVersion}`;
  return `the ${node} node serves ${serves}, not TRON ${expected.name} (${wanted})`;
}

/**
 * The answers a check may use: every answer of a node whose network is not established becomes an
 * `untrusted_node` failure (a call that failed keeps its own failure), so the facts are partial and
 * never rest on it. Pure.
 */
export function trustedAnswers(answers: NodeAnswers, networks: NodeNetworks): NodeAnswers {
  const round = (node: TronNode): NodeRound => {
    const network = networks[node];
    if (network.status === 'established') return answers[node];
    const error: NodeCallError =
      network.status === 'wrong_network'
        ? { kind: 'untrusted_node', node, reason: 'wrong_network', detail: network.mismatch.detail }
        : { kind: 'untrusted_node', node, reason: 'unverified', detail: network.detail };
    const distrust = <A>(answer: Result<A, NodeCallError>): Result<A, NodeCallError> =>
      answer.isOk() ? err(error) : answer;
    const { tx, info, block } = answers[node];
    return { tx: distrust(tx), info: distrust(info), block: distrust(block) };
  };
  return { full: round('full'), solidity: round('solidity'), observedAt: answers.observedAt };
}

/** The nodes whose network is established, in the order given. */
export const establishedNodes = (networks: NodeNetworks, order: readonly TronNode[] = NODES): TronNode[] =>
  order.filter((node) => networks[node].status === 'established');

const unverified = (node: TronNode, error: NodeCallError): NodeNetwork => ({
  status: 'unverified',
  node,
  detail: `the ${node} node's network could not be established (${describeNodeError(error)})`,
});
