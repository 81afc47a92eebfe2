// enode URL parsing (geth's reasons) and the VNODE's own URL.

import t from 'tap';
import secp256k1 from 'secp256k1';
import { formatOwnEnode, parseEnode } from '../../../src/admin/enode.js';
import { StaticPeers } from '../../../src/admin/staticPeers.js';

const id = Buffer.from(secp256k1.publicKeyCreate(new Uint8Array(32).fill(3), false).slice(1)).toString('hex');

t.test('valid URLs', async (t) => {
  const v4 = parseEnode(`enode://${id.toUpperCase()}@1.2.3.4:30303?discport=30301`);
  t.equal(v4.host, '1.2.3.4');
  t.equal(v4.port, 30303);
  t.equal(v4.url, `enode://${id}@1.2.3.4:30303`);
  t.equal(Buffer.from(v4.id).toString('hex'), id);
  t.equal(parseEnode(`enode://${id}@[::1]:1`).url, `enode://${id}@[::1]:1`);
  t.equal(parseEnode(`ENODE://${id}@node-1.example.org:65535`).host, 'node-1.example.org');
});

t.test('invalid URLs name the reason', async (t) => {
  const cases: [string, string][] = [
    [`enode://${id}@1.2.3.4`, 'missing port'],
    [`enode://${id}@1.2.3.4:`, 'invalid port'],
    [`enode://${id}@1.2.3.4:99999`, 'invalid port'],
    [`enode://${id}@:30303`, 'invalid host ""'],
    [`enode://${id}@-bad-.org:30303`, 'invalid host "-bad-.org"'],
    [`enode://${id}@[1.2.3.4]:30303`, 'invalid host "1.2.3.4"'],
    [`enr:-abc`, 'invalid URL scheme, want "enode"'],
    [`${id}@1.2.3.4:30303`, 'invalid URL scheme, want "enode"'],
    [`enode://${id}`, 'does not contain node ID'],
    [`enode://${id}00@1.2.3.4:30303`, 'invalid public key (want 128 hex digits)'],
    [`enode://${'ff'.repeat(64)}@1.2.3.4:30303`, 'invalid public key (invalid secp256k1 curve point)'],
  ];
  for (const [url, reason] of cases) t.throws(() => parseEnode(url), { kind: 'invalidEnode', message: `invalid enode: ${reason}` }, url);
});

t.test('own URL with the VNODE query', async (t) => {
  t.equal(
    formatOwnEnode({
      id: Buffer.from(id, 'hex'), ip: '127.0.0.1', port: 30333, serviceCfg: ':50062', showToPublic: true,
      beneficialAddress: '0xD814F2ac2c4cA49b33066582E4e97EBae02F2aB9', vnodeIp: '',
    }),
    `enode://${id}@127.0.0.1:30333?servicecfgport=:50062&showtopublic=true&beneficialaddress=0xD814F2ac2c4cA49b33066582E4e97EBae02F2aB9&ip=`,
  );
});

t.test('static peers are bounded and keyed by node id', async (t) => {
  const peers = new StaticPeers(2);
  const other = Buffer.from(secp256k1.publicKeyCreate(new Uint8Array(32).fill(4), false).slice(1)).toString('hex');
  const third = Buffer.from(secp256k1.publicKeyCreate(new Uint8Array(32).fill(5), false).slice(1)).toString('hex');
  peers.add(parseEnode(`enode://${id}@1.1.1.1:1`));
  peers.add(parseEnode(`enode://${id}@2.2.2.2:2`));
  peers.add(parseEnode(`enode://${other}@3.3.3.3:3`));
  t.same(peers.list().map((p) => p.host), ['2.2.2.2', '3.3.3.3'], 'a known id is updated, not added');
  t.throws(() => peers.add(parseEnode(`enode://${third}@4.4.4.4:4`)), { kind: 'limitExceeded', message: 'limit exceeded: static peers (2)' });
  t.equal(peers.remove(parseEnode(`enode://${id}@9.9.9.9:9`)), true);
  t.equal(peers.list().length, 1);
});
