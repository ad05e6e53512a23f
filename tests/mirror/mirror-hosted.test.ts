import { mirrorSuite } from './mirror-end-to-end';

mirrorSuite('hosted');
