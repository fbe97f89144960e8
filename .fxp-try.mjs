import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { readFileSync } from 'node:fs';
const xml = readFileSync('/work/shared/data/domcaps/domcaps-x86_64-kvm-q35.xml','utf8');
for (const s of ['', '   ', 'hello', xml.slice(0, 3000), '<a></b>', '<a/><b/>', '<?xml version="1.0"?>\n<domainCapabilities/>', '<!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>', '<x>&bogus;</x>', '<x a="1" a="2"/>']) {
  console.log(JSON.stringify(s.slice(0,40)), JSON.stringify(XMLValidator.validate(s)));
}
const p = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', parseTagValue: false, parseAttributeValue: false, isArray: (n) => ['enum','value'].includes(n) });
const doc = p.parse(xml);
console.log(JSON.stringify(doc.domainCapabilities.devices.tpm), JSON.stringify(doc.domainCapabilities.os));
console.log(Object.keys(doc));
let t=performance.now(); for (let i=0;i<1000;i++){ XMLValidator.validate(xml); } console.log('validate', (performance.now()-t)/1000);
t=performance.now(); for (let i=0;i<1000;i++){ p.parse(xml); } console.log('parse', (performance.now()-t)/1000);
console.log(JSON.stringify(p.parse('<?xml version="1.0"?>\n<!-- c --><domainCapabilities/>')));
