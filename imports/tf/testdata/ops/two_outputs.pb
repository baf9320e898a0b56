
;
xPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ

hTanhx*
T0

ySigmoidh*
T0

zSquareh*
T0"ª