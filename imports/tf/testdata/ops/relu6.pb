
;
xPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ

yRelu6x*
T0"ª