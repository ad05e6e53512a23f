import { mirrorSuite } from './mirror-end-to-end';

mirrorSuite('self-hosted');
