import { chromium } from 'playwright-core';
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless','--no-sandbox','--disable-gpu'] });
const p = await b.newPage({ viewport: { width: 1440, height: 900 } });
p.on('pageerror', (e) => console.log('page error:', e.message));
p.on('console', (m) => { if (m.type() === 'error') console.log('console error:', m.text()); });
await p.goto('http://127.0.0.1:8899/editor/'); await p.waitForTimeout(2000);
await p.locator('input[type=file]').first().setInputFiles(process.argv[2]); await p.waitForTimeout(3000);
await p.screenshot({ path: process.argv[3] });
await b.close();
